"""What DINOv2's and DINOv3's ViT-Adapters share, as plain functions of the adapter's state dict
(its names without the file's prefix): ViT-Adapter's spatial prior and extractors (Chen et al.,
czczup/ViT-Adapter adapter_modules.py), the level tokens they read and write, and the 4 maps made
of them. DINOv2's adds injectors and runs its ViT between them (dinov2_m2f_reference.py); DINOv3's
reads a frozen ViT's maps (dinov3_m2f_reference.py)."""

import torch
import torch.nn.functional as F

from tests.checkpoints.m2f_reference import (
    batch_norm,
    bn_keys,
    conv,
    deform_attn,
    deform_attn_keys,
    ffn_keys,
    grid_centres,
    layer_norm,
    lin,
    linear_keys,
    norm_keys,
)


def adapter_layout(dim, inplanes, heads, interactions, points=4, ratio=0.5, cffn_ratio=0.25):
    """The spatial prior, each interaction's extractor (extra extractors on the last), up and
    norm1-4."""
    out = {'level_embed': (3, dim)}
    i1, i2, i4 = inplanes, 2 * inplanes, 4 * inplanes
    convs = [('stem.0', 'stem.1', 3, i1), ('stem.3', 'stem.4', i1, i1)]
    convs += [('stem.6', 'stem.7', i1, i1), ('conv2.0', 'conv2.1', i1, i2)]
    convs += [('conv3.0', 'conv3.1', i2, i4), ('conv4.0', 'conv4.1', i4, i4)]
    for name, bn, cin, cout in convs:
        out[f'spm.{name}.weight'] = (cout, cin, 3, 3)
        out.update(bn_keys(f'spm.{bn}', cout))
    for i, width in enumerate((i1, i2, i4, i4), 1):
        out.update(linear_keys(f'spm.fc{i}', width, dim, (1, 1)))
    hidden = int(dim * cffn_ratio)
    for i in range(interactions):
        names = [f'interactions.{i}.extractor.']
        if i == interactions - 1:
            names += [f'interactions.{i}.extra_extractors.{j}.' for j in range(2)]
        for p in names:
            for norm in ('query_norm', 'feat_norm', 'ffn_norm'):
                out.update(norm_keys(p + norm, dim))
            out.update(deform_attn_keys(p + 'attn', dim, heads, 1, points, ratio))
            out.update(ffn_keys(p + 'ffn.fc1', p + 'ffn.fc2', dim, hidden))
            out.update(linear_keys(p + 'ffn.dwconv.dwconv', 1, hidden, (3, 3)))
    out['up.weight'], out['up.bias'] = (dim, dim, 2, 2), (dim,)
    for i in range(1, 5):
        out.update(bn_keys(f'norm{i}', dim))
    return out


def spatial_prior(sd, image):
    def conv_bn_relu(x, name, bn, stride):
        return F.relu(
            batch_norm(sd, f'spm.{bn}', conv(sd, f'spm.{name}', x, stride=stride, padding=1))
        )

    c1 = conv_bn_relu(image, 'stem.0', 'stem.1', 2)
    c1 = conv_bn_relu(c1, 'stem.3', 'stem.4', 1)
    c1 = conv_bn_relu(c1, 'stem.6', 'stem.7', 1)
    c1 = F.max_pool2d(c1, kernel_size=3, stride=2, padding=1)
    c2 = conv_bn_relu(c1, 'conv2.0', 'conv2.1', 2)
    c3 = conv_bn_relu(c2, 'conv3.0', 'conv3.1', 2)
    c4 = conv_bn_relu(c3, 'conv4.0', 'conv4.1', 2)
    return [conv(sd, f'spm.fc{i}', c) for i, c in enumerate((c1, c2, c3, c4), 1)]


def prior_tokens(sd, image):
    """(c1, the tokens of c2, c3, c4 with their level embeddings, concatenated)."""
    c1, *rest = spatial_prior(sd, image)
    levels = [c.flatten(2).transpose(1, 2) + sd['level_embed'][i] for i, c in enumerate(rest)]
    return c1, torch.cat(levels, 1)


def prior_shapes(h_c, w_c):
    """The shapes of c2, c3, c4 (strides 8, 16, 32) given c3's."""
    return [(2 * h_c, 2 * w_c), (h_c, w_c), (h_c // 2, w_c // 2)]


def conv_ffn(sd, p, x, h, w):
    """ConvFFN: fc1, the depthwise conv on each of the 3 levels, GELU, fc2."""
    x = lin(sd, p + 'fc1', x)
    b, _, c = x.shape
    shapes = prior_shapes(h, w)
    parts = []
    for tokens, (hh, ww) in zip(x.split([hh * ww for hh, ww in shapes], 1), shapes):
        fmap = tokens.transpose(1, 2).reshape(b, c, hh, ww)
        fmap = conv(sd, p + 'dwconv.dwconv', fmap, padding=1, groups=c)
        parts.append(fmap.flatten(2).transpose(1, 2))
    return lin(sd, p + 'fc2', F.gelu(torch.cat(parts, 1)))


def extractor(sd, p, c, x, ref, vit_shape, heads, points, h_c, w_c):
    query = layer_norm(sd, p + 'query_norm', c, eps=1e-6)
    feat = layer_norm(sd, p + 'feat_norm', x, eps=1e-6)
    c = c + deform_attn(sd, p + 'attn', query, ref, feat, [vit_shape], heads, points)
    return c + conv_ffn(sd, p + 'ffn.', layer_norm(sd, p + 'ffn_norm', c, eps=1e-6), h_c, w_c)


def extract(sd, i, c, x, vit_shape, heads, points, h_c, w_c):
    """Interaction ``i``'s extractor and the extra extractors the file holds for it: the prior's
    tokens ``c`` read the ViT's patch tokens ``x``."""
    ref = grid_centres(prior_shapes(h_c, w_c))[:, :, None].expand(c.shape[0], -1, 1, -1)
    extra = f'interactions.{i}.extra_extractors.'
    names = [f'interactions.{i}.extractor.']
    names += [f'{extra}{j}.' for j in range(2) if f'{extra}{j}.ffn.fc1.weight' in sd]
    for p in names:
        c = extractor(sd, p, c, x, ref, vit_shape, heads, points, h_c, w_c)
    return c


def adapter_outputs(sd, c1, c, vit_maps, h_c, w_c):
    """The 4 maps, finest first: the prior's tokens ``c`` back to maps, c1 plus c2 upsampled, each
    plus its ViT map resized, batch-normed."""
    b, dim = c1.shape[:2]
    shapes = prior_shapes(h_c, w_c)
    c2, c3, c4 = (
        t.transpose(1, 2).reshape(b, dim, *hw)
        for t, hw in zip(c.split([h * w for h, w in shapes], 1), shapes)
    )
    c1 = F.conv_transpose2d(c2, sd['up.weight'], sd['up.bias'], stride=2) + c1
    sizes = [(4 * h_c, 4 * w_c), *shapes]
    maps = [
        m + F.interpolate(v, size=s, mode='bilinear', align_corners=False)
        for m, v, s in zip((c1, c2, c3, c4), vit_maps, sizes)
    ]
    return [batch_norm(sd, f'norm{i}', m) for i, m in enumerate(maps, 1)]
