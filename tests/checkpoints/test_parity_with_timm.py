"""Same weights in, same features out: timm's models vs SpecViT built from the converter."""
import pytest
import timm
import torch

from vitspec.checkpoints.convert import convert_checkpoint
from vitspec.checkpoints.load import load_state_dict_strict
from vitspec.models import SpecViT


def perturbed(model):
    """Random init plus noise everywhere (LayerScale starts at 1e-5: make every branch count)."""
    torch.manual_seed(0)
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.add_(torch.randn_like(p) * (0.3 if 'gamma' in name else 0.02))
    return model.eval()


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
        expected = ref.forward_intermediates(x, indices=list(indices), norm=True,
                                             intermediates_only=True)
        got = model(x)
    for e, g in zip(expected, got):
        assert g.shape == e.shape
        assert (g - e).abs().max() <= 1e-4


@pytest.mark.parametrize('name, layout', [
    ('vit_small_patch14_dinov2', 'timm'),
    ('vit_small_patch14_dinov2', 'dinov2'),
    ('vit_small_patch14_reg4_dinov2', 'timm'),
    ('vit_small_patch14_reg4_dinov2', 'dinov2'),
    ('deit3_small_patch16_224', 'timm'),
])
def test_vit_family(name, layout):
    ref = perturbed(timm.create_model(name, pretrained=False, num_classes=0,
                                      dynamic_img_size=True))
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


def test_cait_at_its_own_size():
    ref = perturbed(timm.create_model('cait_xxs24_224', pretrained=False, num_classes=0))
    model, cfg = to_specvit(ref.state_dict(), 'cait')  # timm keeps CaiT's own key names
    assert (cfg['num_class_attn_layers'], cfg['talking_heads'], cfg['num_heads']) == (2, True, 4)
    x = torch.randn(2, 3, 224, 224)
    with torch.no_grad():
        expected = ref.forward_intermediates(x, indices=[5, 23], norm=True,
                                             intermediates_only=True)
        model.out_indices = [5, 23]
        got = model(x)
        for e, g in zip(expected, got):
            assert (g - e).abs().max() <= 1e-4
        tokens, _ = model._embed(x)
        for blk in model.blocks:
            tokens = blk(tokens, model.num_cls)
        cls = model.forward_cls(tokens)
        torch.testing.assert_close(cls, ref.forward_features(x)[:, 0], atol=1e-4, rtol=0)
