"""DINOv2's Mask2Former segmentor head (facebookresearch/dinov2 dinov2/eval/segmentation_m2f:
models/decode_heads/mask2former_head.py, plugins/msdeformattn_pixel_decoder.py on mmcv 1.x's
transformer layers) and its ViT-Adapter's key layout, rewritten here as plain functions of the
state dict in its own key names: the reference the converted head is compared with.

The layers are mmcv 1.x BaseTransformerLayers: lists in operation order. The pixel decoder's
encoder layer runs (self_attn, norm, ffn, norm) with a multi-scale deformable attention whose
query gets the position and whose value does not; the decoder layer runs (cross_attn, norm,
self_attn, norm, ffn, norm), so its ``attentions.0`` is the cross-attention. The primitives
(linear, norms, the sine position of a maskless map, deformable attention on grid_sample,
nn.MultiheadAttention) are the DINOv3 reference's: the same operations under other names.
"""

import torch
import torch.nn.functional as F

from tests.checkpoints.dinov3_m2f_reference import (
    _attention,
    _bn,
    _deform_attn,
    _ffn,
    _linear,
    _mha,
    _norm,
    batch_norm,
    deform_attn,
    extractor,
    grid_centres,
    group_norm,
    layer_norm,
    lin,
    sine_position,
    spatial_prior,
)

HEAD = 'decode_head.'
BACKBONE = 'backbone.'


def _conv_gn(prefix, in_dim, out_dim, k, bias=True):
    conv = {f'{prefix}conv.weight': (out_dim, in_dim, k, k)}
    if bias:
        conv[f'{prefix}conv.bias'] = (out_dim,)
    return conv | _norm(prefix + 'gn', out_dim)


def head_layout(in_dims, dim, ffn, heads, num_classes, queries, enc_layers, dec_layers, points=4):
    """The keys and shapes of mmdet 2.x's Mask2FormerHead as DINOv2 builds it (3 encoder levels,
    a lateral / output pair on the finest map, decoder_input_projs Identity)."""
    out = {}
    for i in range(3):
        out.update(_conv_gn(f'pixel_decoder.input_convs.{i}.', in_dims, dim, 1))
    for i in range(enc_layers):
        p = f'pixel_decoder.encoder.layers.{i}.'
        out.update(_deform_attn(p + 'attentions.0.', dim, heads, 3, points))
        out.update(_ffn(p + 'ffns.0.layers.', dim, ffn, '0.0', '1'))
        out.update(_norm(p + 'norms.0', dim) | _norm(p + 'norms.1', dim))
    out['pixel_decoder.level_encoding.weight'] = (3, dim)
    out.update(_conv_gn('pixel_decoder.lateral_convs.0.', in_dims, dim, 1, bias=False))
    out.update(_conv_gn('pixel_decoder.output_convs.0.', dim, dim, 3, bias=False))
    out.update(_linear('pixel_decoder.mask_feature', dim, dim, (1, 1)))
    for i in range(dec_layers):
        p = f'transformer_decoder.layers.{i}.'
        out.update(_mha(p + 'attentions.0.attn.', dim) | _mha(p + 'attentions.1.attn.', dim))
        out.update(_ffn(p + 'ffns.0.layers.', dim, ffn, '0.0', '1'))
        for j in range(3):
            out.update(_norm(f'{p}norms.{j}', dim))
    out.update(_norm('transformer_decoder.post_norm', dim))
    out['query_embed.weight'] = (queries, dim)
    out['query_feat.weight'] = (queries, dim)
    out['level_embed.weight'] = (3, dim)
    out.update(_linear('cls_embed', dim, num_classes + 1))
    for i in (0, 2, 4):
        out.update(_linear(f'mask_embed.{i}', dim, dim))
    return out


def pixel_decoder(sd, feats, heads, points=4):
    """MSDeformAttnPixelDecoder.forward: (mask features, the 3 encoder maps coarse to fine) of
    the 4 input maps, finest first; input_convs[i] reads feats[3 - i]."""
    p = 'pixel_decoder.'
    srcs = []
    for i in range(3):
        x = F.conv2d(
            feats[3 - i], sd[f'{p}input_convs.{i}.conv.weight'], sd[f'{p}input_convs.{i}.conv.bias']
        )
        srcs.append(group_norm(sd, f'{p}input_convs.{i}.gn', x))
    dim = srcs[0].shape[1]
    shapes = [tuple(s.shape[-2:]) for s in srcs]
    flat = torch.cat([s.flatten(2).transpose(1, 2) for s in srcs], 1)
    pos = torch.cat(
        [
            sine_position(s, dim // 2).flatten(2).transpose(1, 2)
            + sd[p + 'level_encoding.weight'][i]
            for i, s in enumerate(srcs)
        ],
        1,
    )
    b = flat.shape[0]
    ref = grid_centres(shapes)[:, :, None].expand(b, -1, len(shapes), -1)
    layers = sorted({int(k.split('.')[3]) for k in sd if k.startswith(p + 'encoder.layers.')})
    x = flat
    for i in layers:
        lp = f'{p}encoder.layers.{i}.'
        attn = deform_attn(sd, lp + 'attentions.0.', x + pos, ref, x, shapes, heads, points)
        x = layer_norm(sd, lp + 'norms.0', x + attn)
        ffn = lin(sd, lp + 'ffns.0.layers.1', F.relu(lin(sd, lp + 'ffns.0.layers.0.0', x)))
        x = layer_norm(sd, lp + 'norms.1', x + ffn)
    outs = [
        t.transpose(1, 2).reshape(b, dim, *hw)
        for t, hw in zip(x.split([h * w for h, w in shapes], 1), shapes)
    ]
    lateral = F.conv2d(feats[0], sd[p + 'lateral_convs.0.conv.weight'])
    lateral = group_norm(sd, p + 'lateral_convs.0.gn', lateral)
    y = lateral + F.interpolate(
        outs[-1], size=lateral.shape[-2:], mode='bilinear', align_corners=False
    )
    y = F.conv2d(y, sd[p + 'output_convs.0.conv.weight'], padding=1)
    y = F.relu(group_norm(sd, p + 'output_convs.0.gn', y))
    mask_features = F.conv2d(y, sd[p + 'mask_feature.weight'], sd[p + 'mask_feature.bias'])
    return mask_features, outs


def decoder(sd, maps, mask_features, heads):
    """Mask2FormerHead.forward after the pixel decoder: (class logits, masks) after the
    queries alone and after each decoder layer, batch first."""
    p = 'transformer_decoder.'
    layers = sorted({int(k.split('.')[2]) for k in sd if k.startswith(p + 'layers.')})
    dim = maps[0].shape[1]
    srcs, pos, sizes = [], [], []
    for i, m in enumerate(maps):
        sizes.append(m.shape[-2:])
        pos.append(sine_position(m, dim // 2).flatten(2).permute(2, 0, 1))
        srcs.append((m.flatten(2) + sd['level_embed.weight'][i][None, :, None]).permute(2, 0, 1))
    b = maps[0].shape[0]
    query_pos = sd['query_embed.weight'][:, None].repeat(1, b, 1)
    output = sd['query_feat.weight'][:, None].repeat(1, b, 1)

    def forward_head(output, size):
        dec = layer_norm(sd, p + 'post_norm', output).transpose(0, 1)
        logits = lin(sd, 'cls_embed', dec)
        embed = F.relu(lin(sd, 'mask_embed.0', dec))
        embed = lin(sd, 'mask_embed.4', F.relu(lin(sd, 'mask_embed.2', embed)))
        masks = torch.einsum('bqc,bchw->bqhw', embed, mask_features)
        attn = F.interpolate(masks, size=size, mode='bilinear', align_corners=False)
        attn = attn.flatten(2)[:, None].repeat(1, heads, 1, 1).flatten(0, 1).sigmoid() < 0.5
        return logits, masks, attn

    logits, masks, attn = forward_head(output, sizes[0])
    all_logits, all_masks = [logits], [masks]
    for i in layers:
        level = i % 3
        attn[torch.where(attn.sum(-1) == attn.shape[-1])] = False
        lp = f'{p}layers.{i}.'
        cross = _attention(
            sd, lp + 'attentions.0.attn.', output + query_pos, srcs[level] + pos[level],
            srcs[level], heads, attn,
        )  # fmt: skip
        output = layer_norm(sd, lp + 'norms.0', output + cross)
        q = output + query_pos
        output = layer_norm(
            sd,
            lp + 'norms.1',
            output + _attention(sd, lp + 'attentions.1.attn.', q, q, output, heads),
        )
        ffn = lin(sd, lp + 'ffns.0.layers.1', F.relu(lin(sd, lp + 'ffns.0.layers.0.0', output)))
        output = layer_norm(sd, lp + 'norms.2', output + ffn)
        logits, masks, attn = forward_head(output, sizes[(i + 1) % 3])
        all_logits.append(logits)
        all_masks.append(masks)
    return all_logits, all_masks


def m2f_head(released: dict, feats, heads):
    """The head of DINOv2's segmentor file on the adapter's maps ``feats`` (finest first)."""
    sd = {k[len(HEAD) :]: v for k, v in released.items() if k.startswith(HEAD)}
    mask_features, maps = pixel_decoder(sd, feats, heads)
    return decoder(sd, maps, mask_features, heads)


def vit_layout(dim, depth, mlp, patch, grid, swiglu=False):
    """TIMMVisionTransformer's keys (segmentation_m2f/models/backbones/vit.py) with LayerScale
    (``gamma1`` / ``gamma2``): no final norm (commented out there)."""
    out = {'cls_token': (1, 1, dim), 'pos_embed': (1, 1 + grid * grid, dim)}
    out.update(_linear('patch_embed.proj', 3, dim, (patch, patch)))
    for i in range(depth):
        p = f'blocks.{i}.'
        out.update(_norm(p + 'norm1', dim) | _norm(p + 'norm2', dim))
        out.update(_linear(p + 'attn.qkv', dim, 3 * dim) | _linear(p + 'attn.proj', dim, dim))
        if swiglu:  # SwiGLUFFN: w1 (gate), w2 (value), w3
            out.update(_linear(p + 'mlp.w1', dim, mlp) | _linear(p + 'mlp.w2', dim, mlp))
            out.update(_linear(p + 'mlp.w3', mlp, dim))
        else:
            out.update(_ffn(p + 'mlp.', dim, mlp, 'fc1', 'fc2'))
        out[p + 'gamma1'], out[p + 'gamma2'] = (dim,), (dim,)
    return out


def adapter_layout(dim, inplanes, heads, interactions, points=4, ratio=0.5, cffn_ratio=0.25):
    """ViTAdapter's own modules (adapter_modules.py): the spatial prior, InteractionBlockWithCls
    (an injector with its gamma, an extractor, extra extractors on the last), up, norm1-4."""
    out = {'level_embed': (3, dim)}
    i1, i2, i4 = inplanes, 2 * inplanes, 4 * inplanes
    convs = [('stem.0', 'stem.1', 3, i1), ('stem.3', 'stem.4', i1, i1)]
    convs += [('stem.6', 'stem.7', i1, i1), ('conv2.0', 'conv2.1', i1, i2)]
    convs += [('conv3.0', 'conv3.1', i2, i4), ('conv4.0', 'conv4.1', i4, i4)]
    for conv, bn, cin, cout in convs:
        out[f'spm.{conv}.weight'] = (cout, cin, 3, 3)
        out.update(_bn(f'spm.{bn}', cout))
    for i, width in enumerate((i1, i2, i4, i4), 1):
        out.update(_linear(f'spm.fc{i}', width, dim, (1, 1)))
    hidden = int(dim * cffn_ratio)
    for i in range(interactions):
        p = f'interactions.{i}.injector.'
        out[p + 'gamma'] = (dim,)
        out.update(_norm(p + 'query_norm', dim) | _norm(p + 'feat_norm', dim))
        out.update(_deform_attn(p + 'attn.', dim, heads, 3, points, ratio))
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


def vit_block(sd, p, x, heads):
    """vit.py's Block with LayerScale: pre-norm (LayerNorm eps 1e-6) attention and MLP."""
    b, n, c = x.shape
    h = layer_norm(sd, p + 'norm1', x, eps=1e-6)
    q, k, v = lin(sd, p + 'attn.qkv', h).reshape(b, n, 3, heads, c // heads).permute(2, 0, 3, 1, 4)
    attn = ((q @ k.transpose(-2, -1)) * (c // heads) ** -0.5).softmax(-1)
    x = x + sd[p + 'gamma1'] * lin(sd, p + 'attn.proj', (attn @ v).transpose(1, 2).reshape(b, n, c))
    h = layer_norm(sd, p + 'norm2', x, eps=1e-6)
    return x + sd[p + 'gamma2'] * lin(sd, p + 'mlp.fc2', F.gelu(lin(sd, p + 'mlp.fc1', h)))


def injector(sd, p, x, c, ref, shapes, heads, points):
    query = layer_norm(sd, p + 'query_norm', x, eps=1e-6)
    feat = layer_norm(sd, p + 'feat_norm', c, eps=1e-6)
    return x + sd[p + 'gamma'] * deform_attn(
        sd, p + 'attn.', query, ref, feat, shapes, heads, points
    )


def vit_adapter(released: dict, image, groups, patch, heads, vit_heads, points=4):
    """ViTAdapter.forward (vit_adapter.py, use_cls, InteractionBlockWithCls): the 4 maps, finest
    first. ``groups``: the interaction indexes ([first, last] block of each)."""
    sd = {k[len(BACKBONE) :]: v for k, v in released.items() if k.startswith(BACKBONE)}
    b, _, hi, wi = image.shape
    c1, c2, c3, c4 = spatial_prior(sd, image)
    dim = c1.shape[1]
    levels = [
        c.flatten(2).transpose(1, 2) + sd['level_embed'][i] for i, c in enumerate((c2, c3, c4))
    ]
    c = torch.cat(levels, 1)
    h_c, w_c = hi // 16, wi // 16
    ht, wt = hi // patch, wi // patch
    x = F.conv2d(image, sd['patch_embed.proj.weight'], sd['patch_embed.proj.bias'], stride=patch)
    x = x.flatten(2).transpose(1, 2)
    pos = sd['pos_embed']
    grid = int(round((pos.shape[1] - 1) ** 0.5))
    table = pos[:, 1:].reshape(1, grid, grid, -1).permute(0, 3, 1, 2)
    table = F.interpolate(table, size=(ht, wt), mode='bicubic', align_corners=False)
    x = x + table.reshape(1, dim, ht * wt).permute(0, 2, 1)
    cls = (sd['cls_token'] + pos[:, :1]).expand(b, -1, -1)
    c_shapes = [(hi // 8, wi // 8), (hi // 16, wi // 16), (hi // 32, wi // 32)]
    ref_vit = grid_centres([(ht, wt)])[:, :, None].expand(b, -1, 3, -1)
    ref_c = grid_centres(c_shapes)[:, :, None].expand(b, -1, 1, -1)
    outs = []
    for i, (first, last) in enumerate(groups):
        x = injector(sd, f'interactions.{i}.injector.', x, c, ref_vit, c_shapes, heads, points)
        tokens = torch.cat((cls, x), 1)
        for j in range(first, last + 1):
            tokens = vit_block(sd, f'blocks.{j}.', tokens, vit_heads)
        cls, x = tokens[:, :1], tokens[:, 1:]
        extra = f'interactions.{i}.extra_extractors.'
        names = [f'interactions.{i}.extractor.']
        names += [f'{extra}{j}.' for j in range(2) if f'{extra}{j}.ffn.fc1.weight' in sd]
        for p in names:
            c = extractor(sd, p, c, x, ref_c, (ht, wt), heads, points, h_c, w_c)
        outs.append(x.transpose(1, 2).reshape(b, dim, ht, wt))
    n2, n3 = levels[0].shape[1], levels[1].shape[1]
    c2 = c[:, :n2].transpose(1, 2).reshape(b, dim, 2 * h_c, 2 * w_c)
    c3 = c[:, n2 : n2 + n3].transpose(1, 2).reshape(b, dim, h_c, w_c)
    c4 = c[:, n2 + n3 :].transpose(1, 2).reshape(b, dim, h_c // 2, w_c // 2)
    c1 = F.conv_transpose2d(c2, sd['up.weight'], sd['up.bias'], stride=2) + c1
    sizes = ((4 * h_c, 4 * w_c), (2 * h_c, 2 * w_c), (h_c, w_c), (h_c // 2, w_c // 2))
    maps = [
        m + F.interpolate(v, size=s, mode='bilinear', align_corners=False)
        for m, v, s in zip((c1, c2, c3, c4), outs, sizes)
    ]
    return [batch_norm(sd, f'norm{i}', m) for i, m in enumerate(maps, 1)]
