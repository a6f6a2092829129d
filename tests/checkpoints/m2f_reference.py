"""What DINOv2's and DINOv3's Mask2Former segmentors share, written as plain functions of a state
dict: the reference their converted heads and adapters are compared with, with nothing of mmcv /
mmdet in it. Each source's module (dinov2_m2f_reference.py, dinov3_m2f_reference.py) names its
keys in a ``HeadKeys`` table and adds what only it has.

The head is the same network under two sets of names: an MSDeformAttn pixel decoder (3 encoder
levels, one lateral / output pair on the finest map) and a masked-attention decoder whose layers
run cross-attention, self-attention, FFN, each followed by its norm (Cheng et al., Mask2Former,
facebookresearch/Mask2Former mask2former/modeling). Also the key layouts, to
make synthetic weights, and a deformable attention written on grid_sample. The adapters' shared
parts are in vit_adapter_reference.py."""

import dataclasses
import math

import torch
import torch.nn.functional as F

# --- key layouts -------------------------------------------------------------------------------


def linear_keys(name, in_dim, out_dim, kernel=(), bias=True):
    out = {f'{name}.weight': (out_dim, in_dim, *kernel)}
    if bias:
        out[f'{name}.bias'] = (out_dim,)
    return out


def norm_keys(name, dim):
    return {f'{name}.weight': (dim,), f'{name}.bias': (dim,)}


def ffn_keys(fc1, fc2, dim, hidden):
    return linear_keys(fc1, dim, hidden) | linear_keys(fc2, hidden, dim)


def mha_keys(name, dim):
    """nn.MultiheadAttention's."""
    return {
        f'{name}.in_proj_weight': (3 * dim, dim),
        f'{name}.in_proj_bias': (3 * dim,),
        f'{name}.out_proj.weight': (dim, dim),
        f'{name}.out_proj.bias': (dim,),
    }


def deform_attn_keys(name, dim, heads, levels, points, ratio=1.0):
    value = int(dim * ratio)
    return (
        linear_keys(f'{name}.sampling_offsets', dim, heads * levels * points * 2)
        | linear_keys(f'{name}.attention_weights', dim, heads * levels * points)
        | linear_keys(f'{name}.value_proj', dim, value)
        | linear_keys(f'{name}.output_proj', value, dim)
    )


_BN = ('weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked')


def bn_keys(name, dim):
    return {f'{name}.{k}': (() if k == 'num_batches_tracked' else (dim,)) for k in _BN}


def synthetic(layout: dict, prefix: str, seed: int = 0, scale: float = 0.2) -> dict:
    """Random tensors under ``prefix`` + the released names; BN statistics valid."""
    g = torch.Generator().manual_seed(seed)
    out = {}
    for key, shape in layout.items():
        if key.endswith('num_batches_tracked'):
            out[prefix + key] = torch.tensor(1000)
        elif key.endswith('running_var'):
            out[prefix + key] = torch.rand(shape, generator=g) + 0.5
        else:
            out[prefix + key] = torch.randn(shape, generator=g) * scale
    return out


def under(released: dict, prefix: str) -> dict:
    """The tensors under ``prefix``, in their names without it."""
    return {k[len(prefix) :]: v for k, v in released.items() if k.startswith(prefix)}


# --- the head's key table ----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class HeadKeys:
    """One source's names of the head's parts: modules (``.weight`` / ``.bias`` follow), ``{i}``
    standing for the layer of the pixel decoder's encoder (``enc_*``) or of the decoder."""

    input_conv: str  # {i}: the input projection of the i-th coarsest map
    input_norm: str
    level_encoding: str  # a tensor's full name
    enc_attn: str
    enc_norm1: str
    enc_fc1: str
    enc_fc2: str
    enc_norm2: str
    lateral_conv: str
    lateral_norm: str
    output_conv: str
    output_norm: str
    mask_feature: str
    cross_attn: str
    cross_norm: str
    self_attn: str
    self_norm: str
    ffn_fc1: str
    ffn_fc2: str
    ffn_norm: str
    post_norm: str
    query_embed: str
    query_feat: str
    level_embed: str
    class_embed: str
    mask_embed: tuple  # the MLP's 3 linears

    def at(self, i: int) -> 'HeadKeys':
        """The names of layer ``i``."""
        return dataclasses.replace(
            self,
            **{
                f.name: getattr(self, f.name).format(i=i)
                for f in dataclasses.fields(self)
                if isinstance(getattr(self, f.name), str)
            },
        )


def layers(sd, template):
    """How many layers hold ``template``'s weight (``{i}`` = 0, 1, ...)."""
    n = 0
    while f'{template.format(i=n)}.weight' in sd:
        n += 1
    return n


def head_layout(keys, in_dims, dim, ffn, heads, num_classes, queries, enc_layers, dec_layers):
    """The head's keys and shapes (input projections of ``in_dims`` channels, 4 sampling points
    of the deformable attention)."""
    out = {}
    for i in range(3):
        k = keys.at(i)
        out.update(linear_keys(k.input_conv, in_dims, dim, (1, 1)) | norm_keys(k.input_norm, dim))
    out[keys.level_encoding] = (3, dim)
    for i in range(enc_layers):
        k = keys.at(i)
        out.update(deform_attn_keys(k.enc_attn, dim, heads, 3, 4))
        out.update(ffn_keys(k.enc_fc1, k.enc_fc2, dim, ffn))
        out.update(norm_keys(k.enc_norm1, dim) | norm_keys(k.enc_norm2, dim))
    out.update(linear_keys(keys.lateral_conv, in_dims, dim, (1, 1), bias=False))
    out.update(norm_keys(keys.lateral_norm, dim))
    out.update(linear_keys(keys.output_conv, dim, dim, (3, 3), bias=False))
    out.update(norm_keys(keys.output_norm, dim))
    out.update(linear_keys(keys.mask_feature, dim, dim, (1, 1)))
    for i in range(dec_layers):
        k = keys.at(i)
        out.update(mha_keys(k.cross_attn, dim) | norm_keys(k.cross_norm, dim))
        out.update(mha_keys(k.self_attn, dim) | norm_keys(k.self_norm, dim))
        out.update(ffn_keys(k.ffn_fc1, k.ffn_fc2, dim, ffn) | norm_keys(k.ffn_norm, dim))
    out.update(norm_keys(keys.post_norm, dim))
    out[keys.query_embed] = (queries, dim)
    out[keys.query_feat] = (queries, dim)
    out[keys.level_embed] = (3, dim)
    out.update(linear_keys(keys.class_embed, dim, num_classes + 1))
    for name in keys.mask_embed:
        out.update(linear_keys(name, dim, dim))
    return out


# --- the parts ---------------------------------------------------------------------------------


def lin(sd, name, x):
    return F.linear(x, sd[name + '.weight'], sd.get(name + '.bias'))


def conv(sd, name, x, **kwargs):
    return F.conv2d(x, sd[name + '.weight'], sd.get(name + '.bias'), **kwargs)


def layer_norm(sd, name, x, eps=1e-5):
    return F.layer_norm(x, x.shape[-1:], sd[name + '.weight'], sd[name + '.bias'], eps)


def group_norm(sd, name, x):
    return F.group_norm(x, 32, sd[name + '.weight'], sd[name + '.bias'], 1e-5)


def batch_norm(sd, name, x):
    return F.batch_norm(
        x, sd[name + '.running_mean'], sd[name + '.running_var'], sd[name + '.weight'],
        sd[name + '.bias'], training=False, eps=1e-5,
    )  # fmt: skip


def sine_position(x, num_feats, temperature=10000):
    """PositionEmbeddingSine(num_feats, normalize=True) of a maskless (B, C, H, W) map."""
    b, _, h, w = x.shape
    y_embed = torch.arange(1, h + 1, dtype=torch.float32)[:, None].expand(h, w)
    x_embed = torch.arange(1, w + 1, dtype=torch.float32)[None, :].expand(h, w)
    y_embed = y_embed / (h + 1e-6) * 2 * math.pi
    x_embed = x_embed / (w + 1e-6) * 2 * math.pi
    dim_t = temperature ** (2 * (torch.arange(num_feats) // 2) / num_feats)

    def interleave(e):
        e = e[..., None] / dim_t
        return torch.stack((e[..., 0::2].sin(), e[..., 1::2].cos()), dim=-1).flatten(-2)

    pos = torch.cat((interleave(y_embed), interleave(x_embed)), dim=-1).permute(2, 0, 1)
    return pos[None].expand(b, -1, -1, -1)


def grid_centres(shapes):
    """(1, sum hw, 2) cell centres in [0, 1] as (x, y), level after level."""
    points = []
    for h, w in shapes:
        ys, xs = torch.meshgrid(
            (torch.arange(h, dtype=torch.float32) + 0.5) / h,
            (torch.arange(w, dtype=torch.float32) + 0.5) / w,
            indexing='ij',
        )
        points.append(torch.stack((xs.reshape(-1), ys.reshape(-1)), -1))
    return torch.cat(points)[None]


def deform_attn(sd, name, query, ref, value_in, shapes, heads, points):
    """MSDeformAttn: ``ref`` (B, Lq, levels, 2); value maps ``shapes`` flattened in value_in."""
    b, lq, _ = query.shape
    levels = len(shapes)
    value = lin(sd, name + '.value_proj', value_in)
    head_dim = value.shape[-1] // heads
    value = value.view(b, -1, heads, head_dim)
    offsets = lin(sd, name + '.sampling_offsets', query).view(b, lq, heads, levels, points, 2)
    weights = lin(sd, name + '.attention_weights', query).view(b, lq, heads, levels * points)
    weights = weights.softmax(-1).view(b, lq, heads, levels, points)
    out = 0
    start = 0
    for level, (h, w) in enumerate(shapes):
        v = value[:, start : start + h * w].permute(0, 2, 3, 1).reshape(b * heads, head_dim, h, w)
        start += h * w
        loc = ref[:, :, None, level, None, :] + offsets[:, :, :, level] / torch.tensor([w, h])
        grid = (2 * loc - 1).permute(0, 2, 1, 3, 4).reshape(b * heads, lq, points, 2)
        sampled = F.grid_sample(v, grid, mode='bilinear', padding_mode='zeros', align_corners=False)
        wl = weights[:, :, :, level].permute(0, 2, 1, 3).reshape(b * heads, 1, lq, points)
        out = out + (sampled * wl).sum(-1)
    out = out.view(b, heads * head_dim, lq).transpose(1, 2)
    return lin(sd, name + '.output_proj', out)


def attention(sd, name, q, k, v, heads, mask=None):
    """nn.MultiheadAttention, sequence first (L, B, C)."""
    out, _ = F.multi_head_attention_forward(
        q, k, v, q.shape[-1], heads,
        sd[name + '.in_proj_weight'], sd[name + '.in_proj_bias'], None, None, False, 0.0,
        sd[name + '.out_proj.weight'], sd[name + '.out_proj.bias'],
        training=False, need_weights=False, attn_mask=mask,
    )  # fmt: skip
    return out


# --- the head ----------------------------------------------------------------------------------


def pixel_decoder(sd, keys, feats, heads, points=4):
    """MSDeformAttnPixelDecoder: (mask features, the 3 encoder maps coarse to fine) of the
    adapter's 4 maps, finest first; the 3 coarsest enter the encoder (input i reads
    feats[3 - i])."""
    srcs = []
    for i in range(3):
        k = keys.at(i)
        srcs.append(group_norm(sd, k.input_norm, conv(sd, k.input_conv, feats[3 - i])))
    dim = srcs[0].shape[1]
    shapes = [tuple(s.shape[-2:]) for s in srcs]
    flat = torch.cat([s.flatten(2).transpose(1, 2) for s in srcs], 1)
    pos = torch.cat(
        [
            sine_position(s, dim // 2).flatten(2).transpose(1, 2) + sd[keys.level_encoding][i]
            for i, s in enumerate(srcs)
        ],
        1,
    )
    b = flat.shape[0]
    ref = grid_centres(shapes)[:, :, None].expand(b, -1, len(shapes), -1)
    x = flat
    for i in range(layers(sd, keys.enc_fc1)):
        k = keys.at(i)
        attn = deform_attn(sd, k.enc_attn, x + pos, ref, x, shapes, heads, points)
        x = layer_norm(sd, k.enc_norm1, x + attn)
        ffn = lin(sd, k.enc_fc2, F.relu(lin(sd, k.enc_fc1, x)))
        x = layer_norm(sd, k.enc_norm2, x + ffn)
    outs = [
        t.transpose(1, 2).reshape(b, dim, *hw)
        for t, hw in zip(x.split([h * w for h, w in shapes], 1), shapes)
    ]
    lateral = group_norm(sd, keys.lateral_norm, conv(sd, keys.lateral_conv, feats[0]))
    y = lateral + F.interpolate(
        outs[-1], size=lateral.shape[-2:], mode='bilinear', align_corners=False
    )
    y = F.relu(group_norm(sd, keys.output_norm, conv(sd, keys.output_conv, y, padding=1)))
    return conv(sd, keys.mask_feature, y), outs


def decoder(sd, keys, maps, mask_features, heads):
    """The masked-attention decoder: (class logits, masks) after the queries alone and after
    each layer, batch first."""
    dim = maps[0].shape[1]
    srcs, pos, sizes = [], [], []
    for i, m in enumerate(maps):
        sizes.append(m.shape[-2:])
        pos.append(sine_position(m, dim // 2).flatten(2).permute(2, 0, 1))
        srcs.append((m.flatten(2) + sd[keys.level_embed][i][None, :, None]).permute(2, 0, 1))
    b = maps[0].shape[0]
    query_pos = sd[keys.query_embed][:, None].repeat(1, b, 1)
    output = sd[keys.query_feat][:, None].repeat(1, b, 1)

    def predict(output, size):
        dec = layer_norm(sd, keys.post_norm, output).transpose(0, 1)
        logits = lin(sd, keys.class_embed, dec)
        first, second, last = keys.mask_embed
        embed = lin(sd, last, F.relu(lin(sd, second, F.relu(lin(sd, first, dec)))))
        masks = torch.einsum('bqc,bchw->bqhw', embed, mask_features)
        attn = F.interpolate(masks, size=size, mode='bilinear', align_corners=False)
        attn = attn.sigmoid().flatten(2)[:, None].repeat(1, heads, 1, 1).flatten(0, 1) < 0.5
        return logits, masks, attn

    logits, masks, attn = predict(output, sizes[0])
    all_logits, all_masks = [logits], [masks]
    for i in range(layers(sd, keys.ffn_fc1)):
        k = keys.at(i)
        level = i % 3
        attn[torch.where(attn.sum(-1) == attn.shape[-1])] = False
        cross = attention(
            sd, k.cross_attn, output + query_pos, srcs[level] + pos[level], srcs[level], heads, attn
        )
        output = layer_norm(sd, k.cross_norm, output + cross)
        q = output + query_pos
        output = layer_norm(
            sd, k.self_norm, output + attention(sd, k.self_attn, q, q, output, heads)
        )
        ffn = lin(sd, k.ffn_fc2, F.relu(lin(sd, k.ffn_fc1, output)))
        output = layer_norm(sd, k.ffn_norm, output + ffn)
        logits, masks, attn = predict(output, sizes[(i + 1) % 3])
        all_logits.append(logits)
        all_masks.append(masks)
    return all_logits, all_masks


def m2f_head(sd, keys, feats, heads):
    """The head on the adapter's maps ``feats`` (finest first), ``sd`` in ``keys``' names."""
    mask_features, maps = pixel_decoder(sd, keys, feats, heads)
    return decoder(sd, keys, maps, mask_features, heads)
