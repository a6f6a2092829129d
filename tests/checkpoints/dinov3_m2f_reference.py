"""DINOv3's Mask2Former segmentor in its own key names (read from facebookresearch/dinov3
dinov3/eval/segmentation/models/heads/{mask2former_head, pixel_decoder,
mask2former_transformer_decoder}.py, models/utils/{ms_deform_attn, position_encoding}.py and
models/backbone/dinov3_adapter.py): the reference the converted head and adapter are compared
with. What it shares with DINOv2's is in m2f_reference.py and
vit_adapter_reference.py."""

from tests.checkpoints import m2f_reference as m2f
from tests.checkpoints import vit_adapter_reference as adapter
from tests.checkpoints.m2f_reference import under

HEAD = 'segmentation_model.1.'
ADAPTER = 'segmentation_model.0.'

_ENC = 'pixel_decoder.encoder.encoder.layers.{i}.'
_DEC = 'predictor.transformer_'
# DINOv3's Mask2FormerHead (input_proj empty: in_dims == dim)
KEYS = m2f.HeadKeys(
    input_conv='pixel_decoder.input_convs.{i}.0',
    input_norm='pixel_decoder.input_convs.{i}.1',
    level_encoding='pixel_decoder.encoder.level_encoding',
    enc_attn=_ENC + 'self_attn',
    enc_norm1=_ENC + 'norm1',
    enc_fc1=_ENC + 'linear1',
    enc_fc2=_ENC + 'linear2',
    enc_norm2=_ENC + 'norm2',
    lateral_conv='pixel_decoder.lateral_convs.0',
    lateral_norm='pixel_decoder.lateral_convs.0.norm',
    output_conv='pixel_decoder.output_convs.0',
    output_norm='pixel_decoder.output_convs.0.norm',
    mask_feature='pixel_decoder.mask_feature',
    cross_attn=_DEC + 'cross_attention_layers.{i}.multihead_attn',
    cross_norm=_DEC + 'cross_attention_layers.{i}.norm',
    self_attn=_DEC + 'self_attention_layers.{i}.self_attn',
    self_norm=_DEC + 'self_attention_layers.{i}.norm',
    ffn_fc1=_DEC + 'ffn_layers.{i}.linear1',
    ffn_fc2=_DEC + 'ffn_layers.{i}.linear2',
    ffn_norm=_DEC + 'ffn_layers.{i}.norm',
    post_norm='predictor.post_norm',
    query_embed='predictor.query_embed.weight',
    query_feat='predictor.query_feat.weight',
    level_embed='predictor.level_embed.weight',
    class_embed='predictor.class_embed',
    mask_embed=tuple(f'predictor.mask_embed.layers.{j}' for j in range(3)),
)


def m2f_head(released: dict, feats, heads):
    """DINOv3's Mask2FormerHead.layers on the adapter's maps ``feats`` (finest first)."""
    return m2f.m2f_head(under(released, HEAD), KEYS, feats, heads)


def adapter_layout(dim, inplanes, heads, interactions, points=4, ratio=0.5):
    """The keys of DINOv3_Adapter without its frozen ViT (``backbone.*``, not in the file): no
    injectors (with_injector=False)."""
    return adapter.adapter_layout(dim, inplanes, heads, interactions, points, ratio)


def dinov3_adapter(released: dict, image, vit_maps, heads, points=4):
    """DINOv3_Adapter.forward given its ViT's normed patch maps at the interaction indexes
    (get_intermediate_layers(norm=True), reshaped): the 4 maps, finest first."""
    sd = under(released, ADAPTER)
    c1, c = adapter.prior_tokens(sd, image)
    h_c, w_c = image.shape[-2] // 16, image.shape[-1] // 16
    for i, vit_map in enumerate(vit_maps):
        x = vit_map.flatten(2).transpose(1, 2)
        c = adapter.extract(sd, i, c, x, tuple(vit_map.shape[-2:]), heads, points, h_c, w_c)
    return adapter.adapter_outputs(sd, c1, c, vit_maps, h_c, w_c)
