"""Same weights in, same features out: timm's models vs SpecViT built from the converter."""

import pytest
import timm
import torch

from tests.utils import perturbed
from vitspec.checkpoints.convert import convert_checkpoint
from vitspec.checkpoints.load import load_state_dict_strict
from vitspec.layers import TokenLayout
from vitspec.models import SpecViT


def dinov2_own_layout(sd):
    """timm's DINOv2 state dict in facebookresearch/dinov2's own key names and layout."""
    sd = dict(sd)
    out = {'mask_token': torch.zeros(1, sd['cls_token'].shape[-1])}
    if 'reg_token' in sd:  # dinov2-reg keeps a CLS slot in pos_embed; timm folded it into cls
        out['register_tokens'] = sd.pop('reg_token')
        pos = sd.pop('pos_embed')
        cls_pos = torch.randn_like(pos[:, :1])
        out['pos_embed'] = torch.cat([cls_pos, pos], 1)
        out['cls_token'] = sd.pop('cls_token') - cls_pos
    out.update(sd)
    return out


def to_specvit(sd, fmt, **override):
    sd, cfg = convert_checkpoint(sd, fmt)
    cfg.update(override)
    model = SpecViT(**cfg, out_indices=(3, 7, 11)).eval()
    load_state_dict_strict(model, sd)
    return model, cfg


def assert_same_features(ref, model, size, indices=(3, 7, 11)):
    x = torch.randn(1, 3, *size)
    with torch.no_grad():
        expected = ref.forward_intermediates(
            x, indices=list(indices), norm=True, intermediates_only=True
        )
        got = model(x)
    for e, g in zip(expected, got):
        assert g.shape == e.shape
        assert (g - e).abs().max() <= 1e-4


@pytest.mark.parametrize(
    'name, layout',
    [
        ('vit_small_patch14_dinov2', 'timm'),
        ('vit_small_patch14_dinov2', 'dinov2'),
        ('vit_small_patch14_reg4_dinov2', 'timm'),
        ('vit_small_patch14_reg4_dinov2', 'dinov2'),
        ('deit3_small_patch16_224', 'timm'),
    ],
)
def test_vit_family(name, layout):
    ref = perturbed(timm.create_model(name, pretrained=False, num_classes=0, dynamic_img_size=True))
    sd = ref.state_dict() if layout == 'timm' else dinov2_own_layout(ref.state_dict())
    model, cfg = to_specvit(sd, 'timm' if layout == 'timm' else 'dinov2')
    assert cfg['num_register_tokens'] == (4 if 'reg4' in name else 0)
    native = ref.patch_embed.img_size
    patch = cfg['patch_size']
    assert_same_features(ref, model, native)
    if cfg['pos_embed_interp'] == 'dinov2':
        # original DINOv2 resampling (0.1 offset) is not timm's: compare timm's rule off-size
        model.pos_embed_interp = 'timm'
    assert_same_features(ref, model, (12 * patch, 17 * patch))


@pytest.mark.slow
def test_cait_at_its_own_size():
    ref = perturbed(timm.create_model('cait_xxs24_224', pretrained=False, num_classes=0))
    model, cfg = to_specvit(ref.state_dict(), 'cait')  # timm keeps CaiT's own key names
    assert (cfg['num_class_attn_layers'], cfg['talking_heads'], cfg['num_heads']) == (2, True, 4)
    x = torch.randn(2, 3, 224, 224)
    with torch.no_grad():
        expected = ref.forward_intermediates(x, indices=[5, 23], norm=True, intermediates_only=True)
        model.out_indices = [5, 23]
        got = model(x)
        for e, g in zip(expected, got):
            assert (g - e).abs().max() <= 1e-4
        tokens, _ = model._embed(x)
        for blk in model.blocks:
            tokens = blk(tokens, TokenLayout(model.num_cls))
        cls = model.forward_cls(tokens)
        torch.testing.assert_close(cls, ref.forward_features(x)[:, 0], atol=1e-4, rtol=0)


def dinov2_swiglu_layout(sd):
    """timm's ViT-g state dict with DINOv2's own SwiGLU names (timm maps w12/w3 to fc1/fc2)."""
    return {
        k.replace('.mlp.fc1.', '.mlp.w12.').replace('.mlp.fc2.', '.mlp.w3.'): v
        for k, v in dinov2_own_layout(sd).items()
    }


@pytest.mark.parametrize(
    'layout, reduced, specialize',
    [
        ('dinov2', dict(depth=2), None),  # ViT-g's own widths: 1536, 24 heads, SwiGLU 4096
        (
            'dinov2',
            dict(depth=3, embed_dim=384, num_heads=6),
            dict(qkv_blocks='all'),
        ),  # specialized (norms, LayerScales, qkv): at init = plain
        ('timm', dict(depth=3, embed_dim=384, num_heads=6), None),
    ],
    ids=['dinov2-full-width', 'dinov2-specialized', 'timm'],
)
def test_vit_giant_swiglu(layout, reduced, specialize):
    ref = perturbed(
        timm.create_model(
            'vit_giant_patch14_dinov2',
            pretrained=False,
            num_classes=0,
            img_size=56,
            dynamic_img_size=True,
            **reduced,
        )
    )
    sd = ref.state_dict() if layout == 'timm' else dinov2_swiglu_layout(ref.state_dict())
    assert layout == 'timm' or any('.mlp.w12.' in k for k in sd)
    sd, cfg = convert_checkpoint(sd, layout)
    dim = ref.embed_dim
    assert (cfg['ffn_type'], cfg['mlp_ratio'], cfg['embed_dims']) == ('swiglu', 4.0, dim)
    assert cfg['num_heads'] == dim // 64 and cfg['num_layers'] == len(ref.blocks)
    depth = cfg['num_layers']
    model = SpecViT(
        **cfg, out_indices=range(depth), output_cls_token=True, specialize=specialize
    ).eval()
    load_state_dict_strict(model, sd)
    assert model.blocks[0].mlp.fc2.in_features == ref.blocks[0].mlp.fc2.in_features
    if specialize:
        assert model.blocks[0].norm1.cls_weight is not None
    model.pos_embed_interp = 'timm'  # timm resamples its own way off the native grid
    for size in ((56, 56), (70, 42)):
        x = torch.randn(2, 3, *size)
        with torch.no_grad():
            expected = ref.forward_intermediates(
                x,
                indices=list(range(depth)),
                norm=True,
                intermediates_only=True,
                return_prefix_tokens=True,
            )
            got = model(x)
        assert len(got) == len(expected) == depth
        for (e, e_prefix), (g, g_cls) in zip(expected, got):
            assert g.shape == e.shape
            assert (g - e).abs().max() <= 1e-4
            assert (g_cls - e_prefix[:, 0]).abs().max() <= 1e-4
