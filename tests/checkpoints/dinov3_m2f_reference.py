"""DINOv3's Mask2Former head, rewritten here as plain functions of its state dict in its own key
names (read from facebookresearch/dinov3 dinov3/eval/segmentation/models/heads/
{mask2former_head, pixel_decoder, mask2former_transformer_decoder}.py and models/utils/
{ms_deform_attn, position_encoding}.py): the reference the converted head is compared with.
Also the head's key layout, to make synthetic weights, and a deformable attention written on
grid_sample, so that nothing of mmcv / mmdet is in the reference."""

import math

import torch
import torch.nn.functional as F

HEAD = 'segmentation_model.1.'


def head_layout(in_dims, dim, ffn, heads, num_classes, queries, enc_layers, dec_layers, points=4):
    """The keys and shapes of DINOv3's Mask2FormerHead (input_proj empty: in_dims == dim)."""
    out = {}
    for i in range(3):
        out.update(_conv_norm(f'pixel_decoder.input_convs.{i}.', in_dims, dim, 1, '0.', '1.'))
    out['pixel_decoder.encoder.level_encoding'] = (3, dim)
    for i in range(enc_layers):
        p = f'pixel_decoder.encoder.encoder.layers.{i}.'
        out.update(_deform_attn(p + 'self_attn.', dim, heads, 3, points))
        out.update(_ffn(p, dim, ffn, 'linear1', 'linear2'))
        out.update(_norm(p + 'norm1', dim) | _norm(p + 'norm2', dim))
    out['pixel_decoder.lateral_convs.0.weight'] = (dim, in_dims, 1, 1)
    out.update(_norm('pixel_decoder.lateral_convs.0.norm', dim))
    out['pixel_decoder.output_convs.0.weight'] = (dim, dim, 3, 3)
    out.update(_norm('pixel_decoder.output_convs.0.norm', dim))
    out.update(_linear('pixel_decoder.mask_feature', dim, dim, (1, 1)))
    for i in range(dec_layers):
        p = 'predictor.transformer_'
        out.update(_mha(f'{p}self_attention_layers.{i}.self_attn.', dim))
        out.update(_norm(f'{p}self_attention_layers.{i}.norm', dim))
        out.update(_mha(f'{p}cross_attention_layers.{i}.multihead_attn.', dim))
        out.update(_norm(f'{p}cross_attention_layers.{i}.norm', dim))
        out.update(_ffn(f'{p}ffn_layers.{i}.', dim, ffn, 'linear1', 'linear2'))
        out.update(_norm(f'{p}ffn_layers.{i}.norm', dim))
    out.update(_norm('predictor.post_norm', dim))
    out['predictor.query_feat.weight'] = (queries, dim)
    out['predictor.query_embed.weight'] = (queries, dim)
    out['predictor.level_embed.weight'] = (3, dim)
    out.update(_linear('predictor.class_embed', dim, num_classes + 1))
    for i in range(3):
        out.update(_linear(f'predictor.mask_embed.layers.{i}', dim, dim))
    return out


def _linear(name, in_dim, out_dim, kernel=()):
    return {f'{name}.weight': (out_dim, in_dim, *kernel), f'{name}.bias': (out_dim,)}


def _norm(name, dim):
    return {f'{name}.weight': (dim,), f'{name}.bias': (dim,)}


def _conv_norm(prefix, in_dim, out_dim, k, conv, norm):
    return _linear(prefix + conv[:-1], in_dim, out_dim, (k, k)) | _norm(prefix + norm[:-1], out_dim)


def _ffn(prefix, dim, hidden, fc1, fc2):
    return _linear(prefix + fc1, dim, hidden) | _linear(prefix + fc2, hidden, dim)


def _mha(prefix, dim):
    return {
        prefix + 'in_proj_weight': (3 * dim, dim),
        prefix + 'in_proj_bias': (3 * dim,),
        prefix + 'out_proj.weight': (dim, dim),
        prefix + 'out_proj.bias': (dim,),
    }


def _deform_attn(prefix, dim, heads, levels, points, ratio=1.0):
    value = int(dim * ratio)
    return (
        _linear(prefix + 'sampling_offsets', dim, heads * levels * points * 2)
        | _linear(prefix + 'attention_weights', dim, heads * levels * points)
        | _linear(prefix + 'value_proj', dim, value)
        | _linear(prefix + 'output_proj', value, dim)
    )


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


# --- the parts ---------------------------------------------------------------------------------


def lin(sd, name, x):
    return F.linear(x, sd[name + '.weight'], sd.get(name + '.bias'))


def layer_norm(sd, name, x, eps=1e-5):
    return F.layer_norm(x, x.shape[-1:], sd[name + '.weight'], sd[name + '.bias'], eps)


def group_norm(sd, name, x):
    return F.group_norm(x, 32, sd[name + '.weight'], sd[name + '.bias'], 1e-5)


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


def deform_attn(sd, p, query, ref, value_in, shapes, heads, points):
    """MSDeformAttn: ``ref`` (B, Lq, levels, 2); value maps ``shapes`` flattened in value_in."""
    b, lq, _ = query.shape
    levels = len(shapes)
    value = lin(sd, p + 'value_proj', value_in)
    head_dim = value.shape[-1] // heads
    value = value.view(b, -1, heads, head_dim)
    offsets = lin(sd, p + 'sampling_offsets', query).view(b, lq, heads, levels, points, 2)
    weights = lin(sd, p + 'attention_weights', query).view(b, lq, heads, levels * points)
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
    return lin(sd, p + 'output_proj', out)


def pixel_decoder(sd, feats, heads, points=4):
    """(mask features, the 3 encoder maps coarse to fine) of DINOv3's MSDeformAttnPixelDecoder:
    feats are the adapter's 4 maps, finest first; the 3 coarsest enter the encoder."""
    p = 'pixel_decoder.'
    srcs = []
    for i in range(3):
        x = F.conv2d(
            feats[3 - i], sd[f'{p}input_convs.{i}.0.weight'], sd[f'{p}input_convs.{i}.0.bias']
        )
        srcs.append(group_norm(sd, f'{p}input_convs.{i}.1', x))
    dim = srcs[0].shape[1]
    shapes = [tuple(s.shape[-2:]) for s in srcs]
    flat = torch.cat([s.flatten(2).transpose(1, 2) for s in srcs], 1)
    pos = torch.cat(
        [
            sine_position(s, dim // 2).flatten(2).transpose(1, 2)
            + sd[p + 'encoder.level_encoding'][i]
            for i, s in enumerate(srcs)
        ],
        1,
    )
    b = flat.shape[0]
    ref = grid_centres(shapes)[:, :, None].expand(b, -1, len(shapes), -1)
    layers = sorted(
        {int(k.split('.')[4]) for k in sd if k.startswith(p + 'encoder.encoder.layers.')}
    )
    x = flat
    for i in layers:
        lp = f'{p}encoder.encoder.layers.{i}.'
        x = layer_norm(
            sd,
            lp + 'norm1',
            x + deform_attn(sd, lp + 'self_attn.', x + pos, ref, x, shapes, heads, points),
        )
        ffn = lin(sd, lp + 'linear2', F.relu(lin(sd, lp + 'linear1', x)))
        x = layer_norm(sd, lp + 'norm2', x + ffn)
    outs = [
        t.transpose(1, 2).reshape(b, dim, *hw)
        for t, hw in zip(x.split([h * w for h, w in shapes], 1), shapes)
    ]
    lateral = group_norm(
        sd, p + 'lateral_convs.0.norm', F.conv2d(feats[0], sd[p + 'lateral_convs.0.weight'])
    )
    y = lateral + F.interpolate(
        outs[-1], size=lateral.shape[-2:], mode='bilinear', align_corners=False
    )
    y = F.conv2d(y, sd[p + 'output_convs.0.weight'], padding=1)
    y = F.relu(group_norm(sd, p + 'output_convs.0.norm', y))
    mask_features = F.conv2d(y, sd[p + 'mask_feature.weight'], sd[p + 'mask_feature.bias'])
    return mask_features, outs


def _attention(sd, p, q, k, v, heads, mask=None):
    """nn.MultiheadAttention, sequence first (L, B, C)."""
    out, _ = F.multi_head_attention_forward(
        q, k, v, q.shape[-1], heads,
        sd[p + 'in_proj_weight'], sd[p + 'in_proj_bias'], None, None, False, 0.0,
        sd[p + 'out_proj.weight'], sd[p + 'out_proj.bias'],
        training=False, need_weights=False, attn_mask=mask,
    )  # fmt: skip
    return out


def predictor(sd, maps, mask_features, heads):
    """MultiScaleMaskedTransformerDecoder: (class logits, masks) after the queries alone and
    after each layer, batch first."""
    p = 'predictor.'
    layers = sorted(
        {int(k.split('.')[2]) for k in sd if k.startswith(p + 'transformer_ffn_layers.')}
    )
    dim = maps[0].shape[1]
    srcs, pos, sizes = [], [], []
    for i, m in enumerate(maps):
        sizes.append(m.shape[-2:])
        pos.append(sine_position(m, dim // 2).flatten(2).permute(2, 0, 1))
        srcs.append(
            (m.flatten(2) + sd[p + 'level_embed.weight'][i][None, :, None]).permute(2, 0, 1)
        )
    b = maps[0].shape[0]
    query_pos = sd[p + 'query_embed.weight'][:, None].repeat(1, b, 1)
    output = sd[p + 'query_feat.weight'][:, None].repeat(1, b, 1)

    def predict(output, size):
        dec = layer_norm(sd, p + 'post_norm', output).transpose(0, 1)
        logits = lin(sd, p + 'class_embed', dec)
        embed = dec
        for j in range(3):
            embed = lin(sd, f'{p}mask_embed.layers.{j}', embed)
            embed = F.relu(embed) if j < 2 else embed
        masks = torch.einsum('bqc,bchw->bqhw', embed, mask_features)
        attn = F.interpolate(masks, size=size, mode='bilinear', align_corners=False)
        attn = attn.sigmoid().flatten(2)[:, None].repeat(1, heads, 1, 1).flatten(0, 1) < 0.5
        return logits, masks, attn

    logits, masks, attn = predict(output, sizes[0])
    all_logits, all_masks = [logits], [masks]
    for i in layers:
        level = i % 3
        attn[torch.where(attn.sum(-1) == attn.shape[-1])] = False
        lp = f'{p}transformer_cross_attention_layers.{i}.'
        out = _attention(
            sd,
            lp + 'multihead_attn.',
            output + query_pos,
            srcs[level] + pos[level],
            srcs[level],
            heads,
            attn,
        )
        output = layer_norm(sd, lp + 'norm', output + out)
        lp = f'{p}transformer_self_attention_layers.{i}.'
        q = output + query_pos
        output = layer_norm(
            sd, lp + 'norm', output + _attention(sd, lp + 'self_attn.', q, q, output, heads)
        )
        lp = f'{p}transformer_ffn_layers.{i}.'
        ffn = lin(sd, lp + 'linear2', F.relu(lin(sd, lp + 'linear1', output)))
        output = layer_norm(sd, lp + 'norm', output + ffn)
        logits, masks, attn = predict(output, sizes[(i + 1) % 3])
        all_logits.append(logits)
        all_masks.append(masks)
    return all_logits, all_masks


def m2f_head(released: dict, feats, heads):
    """DINOv3's Mask2FormerHead.layers on the adapter's maps ``feats`` (finest first)."""
    sd = {k[len(HEAD) :]: v for k, v in released.items() if k.startswith(HEAD)}
    mask_features, maps = pixel_decoder(sd, feats, heads)
    return predictor(sd, maps, mask_features, heads)


# --- DINOv3_Adapter (dinov3/eval/segmentation/models/backbone/dinov3_adapter.py) ---------------

ADAPTER = 'segmentation_model.0.'
_BN = ('weight', 'bias', 'running_mean', 'running_var', 'num_batches_tracked')


def _bn(name, dim):
    return {f'{name}.{k}': (() if k == 'num_batches_tracked' else (dim,)) for k in _BN}


def adapter_layout(dim, inplanes, heads, interactions, points=4, ratio=0.5, cffn_ratio=0.25):
    """The keys of DINOv3_Adapter without its frozen ViT (``backbone.*``, not in the file)."""
    out = {'level_embed': (3, dim)}
    i1, i2, i4 = inplanes, 2 * inplanes, 4 * inplanes
    convs = [
        ('stem.0', 'stem.1', 3, i1),
        ('stem.3', 'stem.4', i1, i1),
        ('stem.6', 'stem.7', i1, i1),
    ]
    convs += [('conv2.0', 'conv2.1', i1, i2), ('conv3.0', 'conv3.1', i2, i4)]
    convs += [('conv4.0', 'conv4.1', i4, i4)]
    for conv, bn, cin, cout in convs:
        out[f'spm.{conv}.weight'] = (cout, cin, 3, 3)
        out.update(_bn(f'spm.{bn}', cout))
    for i, width in enumerate((i1, i2, i4, i4), 1):
        out.update(_linear(f'spm.fc{i}', width, dim, (1, 1)))
    hidden = int(dim * cffn_ratio)
    for i in range(interactions):
        names = [f'interactions.{i}.extractor.']
        if i == interactions - 1:
            names += [f'interactions.{i}.extra_extractors.{j}.' for j in range(2)]
        for p in names:
            for norm in ('query_norm', 'feat_norm', 'ffn_norm'):
                out.update(_norm(p + norm, dim))
            out.update(_deform_attn(p + 'attn.', dim, heads, 1, points, ratio))
            out.update(_ffn(p + 'ffn.', dim, hidden, 'fc1', 'fc2'))
            out.update(_linear(p + 'ffn.dwconv.dwconv', 1, hidden, (3, 3)))
    out['up.weight'], out['up.bias'] = (dim, dim, 2, 2), (dim,)
    for i in range(1, 5):
        out.update(_bn(f'norm{i}', dim))
    return out


def batch_norm(sd, name, x):
    return F.batch_norm(
        x, sd[name + '.running_mean'], sd[name + '.running_var'], sd[name + '.weight'],
        sd[name + '.bias'], training=False, eps=1e-5,
    )  # fmt: skip


def spatial_prior(sd, image):
    def conv_bn_relu(x, conv, bn, stride):
        x = F.conv2d(x, sd[f'spm.{conv}.weight'], stride=stride, padding=1)
        return F.relu(batch_norm(sd, f'spm.{bn}', x))

    c1 = conv_bn_relu(image, 'stem.0', 'stem.1', 2)
    c1 = conv_bn_relu(c1, 'stem.3', 'stem.4', 1)
    c1 = conv_bn_relu(c1, 'stem.6', 'stem.7', 1)
    c1 = F.max_pool2d(c1, kernel_size=3, stride=2, padding=1)
    c2 = conv_bn_relu(c1, 'conv2.0', 'conv2.1', 2)
    c3 = conv_bn_relu(c2, 'conv3.0', 'conv3.1', 2)
    c4 = conv_bn_relu(c3, 'conv4.0', 'conv4.1', 2)
    return [
        F.conv2d(c, sd[f'spm.fc{i}.weight'], sd[f'spm.fc{i}.bias'])
        for i, c in enumerate((c1, c2, c3, c4), 1)
    ]


def conv_ffn(sd, p, x, h, w):
    """ConvFFN: fc1, the depthwise conv on the 16n / 4n / n split of the 3 levels, GELU, fc2."""
    x = lin(sd, p + 'fc1', x)
    b, n, c = x.shape
    n //= 21
    shapes = ((2 * h, 2 * w), (h, w), (h // 2, w // 2))
    parts = []
    for tokens, (hh, ww) in zip(x.split([16 * n, 4 * n, n], 1), shapes):
        fmap = tokens.transpose(1, 2).reshape(b, c, hh, ww)
        weight, bias = sd[p + 'dwconv.dwconv.weight'], sd[p + 'dwconv.dwconv.bias']
        fmap = F.conv2d(fmap, weight, bias, padding=1, groups=c)
        parts.append(fmap.flatten(2).transpose(1, 2))
    return lin(sd, p + 'fc2', F.gelu(torch.cat(parts, 1)))


def extractor(sd, p, c, x, ref, vit_shape, heads, points, h_c, w_c):
    query = layer_norm(sd, p + 'query_norm', c, eps=1e-6)
    feat = layer_norm(sd, p + 'feat_norm', x, eps=1e-6)
    c = c + deform_attn(sd, p + 'attn.', query, ref, feat, [vit_shape], heads, points)
    return c + conv_ffn(sd, p + 'ffn.', layer_norm(sd, p + 'ffn_norm', c, eps=1e-6), h_c, w_c)


def dinov3_adapter(released: dict, image, vit_maps, heads, points=4):
    """DINOv3_Adapter.forward given its ViT's normed patch maps at the interaction indexes
    (get_intermediate_layers(norm=True), reshaped): the 4 maps, finest first."""
    sd = {k[len(ADAPTER) :]: v for k, v in released.items() if k.startswith(ADAPTER)}
    c1, c2, c3, c4 = spatial_prior(sd, image)
    b, dim = c1.shape[:2]
    levels = [
        c.flatten(2).transpose(1, 2) + sd['level_embed'][i] for i, c in enumerate((c2, c3, c4))
    ]
    c = torch.cat(levels, 1)
    hi, wi = image.shape[-2:]
    h_c, w_c = hi // 16, wi // 16
    ref = grid_centres([(hi // 8, wi // 8), (hi // 16, wi // 16), (hi // 32, wi // 32)])
    ref = ref[:, :, None].expand(b, -1, -1, -1)
    for i, vit_map in enumerate(vit_maps):
        x = vit_map.flatten(2).transpose(1, 2)
        extra = f'interactions.{i}.extra_extractors.'
        names = [f'interactions.{i}.extractor.']
        names += [f'{extra}{j}.' for j in range(2) if f'{extra}{j}.ffn.fc1.weight' in sd]
        for p in names:
            c = extractor(sd, p, c, x, ref, tuple(vit_map.shape[-2:]), heads, points, h_c, w_c)
    n2, n3 = levels[0].shape[1], levels[1].shape[1]
    c2 = c[:, :n2].transpose(1, 2).reshape(b, dim, 2 * h_c, 2 * w_c)
    c3 = c[:, n2 : n2 + n3].transpose(1, 2).reshape(b, dim, h_c, w_c)
    c4 = c[:, n2 + n3 :].transpose(1, 2).reshape(b, dim, h_c // 2, w_c // 2)
    c1 = F.conv_transpose2d(c2, sd['up.weight'], sd['up.bias'], stride=2) + c1
    sizes = ((4 * h_c, 4 * w_c), (2 * h_c, 2 * w_c), (h_c, w_c), (h_c // 2, w_c // 2))
    maps = [
        m + F.interpolate(v, size=s, mode='bilinear', align_corners=False)
        for m, v, s in zip((c1, c2, c3, c4), vit_maps, sizes)
    ]
    return [batch_norm(sd, f'norm{i}', m) for i, m in enumerate(maps, 1)]
