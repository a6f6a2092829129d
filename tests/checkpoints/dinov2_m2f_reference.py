"""DINOv2's Mask2Former segmentor head (facebookresearch/dinov2 dinov2/eval/segmentation_m2f:
models/decode_heads/mask2former_head.py, plugins/msdeformattn_pixel_decoder.py on mmcv 1.x's
transformer layers) and its ViT-Adapter's key layout, in its own key names: the reference the
converted head is compared with. What it shares with DINOv3's is in m2f_reference.py and
vit_adapter_reference.py.

The layers are mmcv 1.x BaseTransformerLayers: lists in operation order. The pixel decoder's
encoder layer runs (self_attn, norm, ffn, norm) with a multi-scale deformable attention whose
query gets the position and whose value does not; the decoder layer runs (cross_attn, norm,
self_attn, norm, ffn, norm), so its ``attentions.0`` is the cross-attention.
"""

import torch
import torch.nn.functional as F

from tests.checkpoints import m2f_reference as m2f
from tests.checkpoints import vit_adapter_reference as adapter
from tests.checkpoints.m2f_reference import (
    deform_attn,
    deform_attn_keys,
    ffn_keys,
    grid_centres,
    layer_norm,
    lin,
    linear_keys,
    norm_keys,
    under,
)

HEAD = 'decode_head.'
BACKBONE = 'backbone.'

_ENC = 'pixel_decoder.encoder.layers.{i}.'
_DEC = 'transformer_decoder.layers.{i}.'
# mmdet 2.x's Mask2FormerHead as DINOv2 builds it (decoder_input_projs Identity)
KEYS = m2f.HeadKeys(
    input_conv='pixel_decoder.input_convs.{i}.conv',
    input_norm='pixel_decoder.input_convs.{i}.gn',
    level_encoding='pixel_decoder.level_encoding.weight',
    enc_attn=_ENC + 'attentions.0',
    enc_norm1=_ENC + 'norms.0',
    enc_fc1=_ENC + 'ffns.0.layers.0.0',
    enc_fc2=_ENC + 'ffns.0.layers.1',
    enc_norm2=_ENC + 'norms.1',
    lateral_conv='pixel_decoder.lateral_convs.0.conv',
    lateral_norm='pixel_decoder.lateral_convs.0.gn',
    output_conv='pixel_decoder.output_convs.0.conv',
    output_norm='pixel_decoder.output_convs.0.gn',
    mask_feature='pixel_decoder.mask_feature',
    cross_attn=_DEC + 'attentions.0.attn',
    cross_norm=_DEC + 'norms.0',
    self_attn=_DEC + 'attentions.1.attn',
    self_norm=_DEC + 'norms.1',
    ffn_fc1=_DEC + 'ffns.0.layers.0.0',
    ffn_fc2=_DEC + 'ffns.0.layers.1',
    ffn_norm=_DEC + 'norms.2',
    post_norm='transformer_decoder.post_norm',
    query_embed='query_embed.weight',
    query_feat='query_feat.weight',
    level_embed='level_embed.weight',
    class_embed='cls_embed',
    mask_embed=('mask_embed.0', 'mask_embed.2', 'mask_embed.4'),
)


def m2f_head(released: dict, feats, heads):
    """The head of DINOv2's segmentor file on the adapter's maps ``feats`` (finest first)."""
    return m2f.m2f_head(under(released, HEAD), KEYS, feats, heads)


def vit_layout(dim, depth, mlp, patch, grid, swiglu=False):
    """TIMMVisionTransformer's keys (segmentation_m2f/models/backbones/vit.py) with LayerScale
    (``gamma1`` / ``gamma2``): no final norm (commented out there)."""
    out = {'cls_token': (1, 1, dim), 'pos_embed': (1, 1 + grid * grid, dim)}
    out.update(linear_keys('patch_embed.proj', 3, dim, (patch, patch)))
    for i in range(depth):
        p = f'blocks.{i}.'
        out.update(norm_keys(p + 'norm1', dim) | norm_keys(p + 'norm2', dim))
        out.update(linear_keys(p + 'attn.qkv', dim, 3 * dim))
        out.update(linear_keys(p + 'attn.proj', dim, dim))
        if swiglu:  # SwiGLUFFN: w1 (gate), w2 (value), w3
            out.update(linear_keys(p + 'mlp.w1', dim, mlp) | linear_keys(p + 'mlp.w2', dim, mlp))
            out.update(linear_keys(p + 'mlp.w3', mlp, dim))
        else:
            out.update(ffn_keys(p + 'mlp.fc1', p + 'mlp.fc2', dim, mlp))
        out[p + 'gamma1'], out[p + 'gamma2'] = (dim,), (dim,)
    return out


def adapter_layout(dim, inplanes, heads, interactions, points=4, ratio=0.5):
    """ViTAdapter's own modules (adapter_modules.py): the shared spatial prior and extractors,
    and InteractionBlockWithCls's injector with its gamma."""
    out = adapter.adapter_layout(dim, inplanes, heads, interactions, points, ratio)
    for i in range(interactions):
        p = f'interactions.{i}.injector.'
        out[p + 'gamma'] = (dim,)
        out.update(norm_keys(p + 'query_norm', dim) | norm_keys(p + 'feat_norm', dim))
        out.update(deform_attn_keys(p + 'attn', dim, heads, 3, points, ratio))
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
        sd, p + 'attn', query, ref, feat, shapes, heads, points
    )


def vit_adapter(released: dict, image, groups, patch, heads, vit_heads, points=4):
    """ViTAdapter.forward (vit_adapter.py, use_cls, InteractionBlockWithCls): the 4 maps, finest
    first. ``groups``: the interaction indexes ([first, last] block of each)."""
    sd = under(released, BACKBONE)
    b, _, hi, wi = image.shape
    c1, c = adapter.prior_tokens(sd, image)
    dim = c1.shape[1]
    h_c, w_c = hi // 16, wi // 16
    ht, wt = hi // patch, wi // patch
    x = m2f.conv(sd, 'patch_embed.proj', image, stride=patch).flatten(2).transpose(1, 2)
    pos = sd['pos_embed']
    grid = int(round((pos.shape[1] - 1) ** 0.5))
    table = pos[:, 1:].reshape(1, grid, grid, -1).permute(0, 3, 1, 2)
    table = F.interpolate(table, size=(ht, wt), mode='bicubic', align_corners=False)
    x = x + table.reshape(1, dim, ht * wt).permute(0, 2, 1)
    cls = (sd['cls_token'] + pos[:, :1]).expand(b, -1, -1)
    ref_vit = grid_centres([(ht, wt)])[:, :, None].expand(b, -1, 3, -1)
    outs = []
    for i, (first, last) in enumerate(groups):
        p = f'interactions.{i}.injector.'
        x = injector(sd, p, x, c, ref_vit, adapter.prior_shapes(h_c, w_c), heads, points)
        tokens = torch.cat((cls, x), 1)
        for j in range(first, last + 1):
            tokens = vit_block(sd, f'blocks.{j}.', tokens, vit_heads)
        cls, x = tokens[:, :1], tokens[:, 1:]
        c = adapter.extract(sd, i, c, x, (ht, wt), heads, points, h_c, w_c)
        outs.append(x.transpose(1, 2).reshape(b, dim, ht, wt))
    return adapter.adapter_outputs(sd, c1, c, outs, h_c, w_c)
