import ast
from pathlib import Path

import pytest
import timm
import torch
from mmdet.registry import MODELS as DET
from mmseg.registry import MODELS as SEG

from vitspec.checkpoints import load_state_dict_strict
from vitspec.errors import CheckpointError
from vitspec.layers import TokenLayout
from vitspec.models import SpecViT
from vitspec.models.backbones import spec_vit

TOY = dict(patch_size=8, embed_dims=64, num_layers=4, num_heads=4)


def timm_vit(**kw):
    return timm.models.VisionTransformer(
        img_size=64,
        patch_size=8,
        embed_dim=64,
        depth=4,
        num_heads=4,
        dynamic_img_size=True,
        num_classes=0,
        **kw,
    ).eval()


@pytest.mark.parametrize(
    'timm_kw, spec_kw',
    [
        (dict(), dict()),
        (dict(init_values=1e-2), dict(layer_scale_init=1e-2)),
        (
            dict(reg_tokens=4, no_embed_class=True, init_values=1e-2),
            dict(num_register_tokens=4, pos_embed_cls=False, layer_scale_init=1e-2),
        ),
    ],
)
@pytest.mark.parametrize('size', [(64, 64), (48, 80)])
def test_matches_timm_intermediates(timm_kw, spec_kw, size):
    torch.manual_seed(0)
    ref = timm_vit(**timm_kw)
    with torch.no_grad():  # non-trivial values everywhere, not just the init
        for p in ref.parameters():
            p.add_(torch.randn_like(p) * 0.02)
    model = SpecViT(img_size=64, out_indices=(1, 3), **TOY, **spec_kw).eval()
    load_state_dict_strict(model, ref.state_dict())
    x = torch.randn(2, 3, *size)
    with torch.no_grad():
        expected = ref.forward_intermediates(x, indices=[1, 3], norm=True, intermediates_only=True)
        got = model(x)
    assert len(got) == 2
    for e, g in zip(expected, got):
        assert g.shape == (2, 64, size[0] // 8, size[1] // 8)
        torch.testing.assert_close(g, e, atol=1e-5, rtol=1e-5)


def test_out_indices_and_final_norm():
    model = SpecViT(img_size=32, out_indices=(0, -1), final_norm=False, **TOY).eval()
    x = torch.randn(1, 3, 32, 32)
    with torch.no_grad():
        first, last = model(x)
        tokens, _ = model._embed(x)
        for blk in model.blocks:
            tokens = blk(tokens)
    assert model.out_indices == [0, 3]
    torch.testing.assert_close(last, tokens[:, 1:].transpose(1, 2).reshape(1, 64, 4, 4))
    assert not torch.allclose(first, last)


def test_input_not_multiple_of_patch_is_center_padded():
    model = SpecViT(img_size=32, **TOY).eval()
    model.init_weights()
    x = torch.randn(1, 3, 27, 35)
    padded = torch.zeros(1, 3, 32, 40)
    padded[:, :, 2:29, 2:37] = x  # 5 rows: 2 above, 3 below; 5 columns: 2 left, 3 right
    with torch.no_grad():
        torch.testing.assert_close(model(x)[0], model(padded)[0])
    assert model(x)[0].shape == (1, 64, 4, 5)
    with pytest.raises(ValueError, match='not a multiple of the patch size 8'):
        model.patch_embed(x)  # the embedding itself never pads silently


def test_registered_in_mmseg_and_mmdet():
    for registry in (SEG, DET):
        model = registry.build(dict(type='SpecViT', img_size=32, **TOY))
        assert isinstance(model, SpecViT)


def test_pretrained_init_cfg_loads_and_mismatch_names_keys(tmp_path):
    src = SpecViT(img_size=32, **TOY)
    src.init_weights()
    path = tmp_path / 'ckpt.pth'
    torch.save({'state_dict': {f'backbone.{k}': v for k, v in src.state_dict().items()}}, path)
    model = SpecViT(img_size=32, **TOY, init_cfg=dict(type='Pretrained', checkpoint=str(path)))
    model.init_weights()
    for k, v in src.state_dict().items():
        torch.testing.assert_close(model.state_dict()[k], v)

    wrong = SpecViT(
        img_size=32,
        layer_scale_init=1e-5,
        **TOY,
        init_cfg=dict(type='Pretrained', checkpoint=str(path)),
    )
    with pytest.raises(CheckpointError, match=r'missing keys \(8\): blocks\.0\.ls1\.gamma'):
        wrong.init_weights()


def test_pretrained_pos_embed_is_resampled(tmp_path):
    src = SpecViT(img_size=32, **TOY)
    src.init_weights()
    path = tmp_path / 'ckpt.pth'
    torch.save(src.state_dict(), path)
    model = SpecViT(img_size=48, **TOY, init_cfg=dict(type='Pretrained', checkpoint=str(path)))
    model.init_weights()
    assert model.pos_embed.shape == (1, 1 + 6 * 6, 64)
    torch.testing.assert_close(model.pos_embed[:, 0], src.pos_embed[:, 0])


def test_frozen_stages_freeze_embedding_and_blocks():
    model = SpecViT(img_size=32, frozen_stages=2, **TOY).train()
    frozen = {n for n, p in model.named_parameters() if not p.requires_grad}
    assert {'cls_token', 'pos_embed', 'patch_embed.proj.weight'} <= frozen
    assert any(n.startswith('blocks.1.') for n in frozen)
    assert not any(n.startswith('blocks.2.') for n in frozen)
    assert not model.blocks[0].training and model.blocks[2].training


def test_gradient_checkpointing_gives_same_gradients():
    torch.manual_seed(0)
    plain = SpecViT(img_size=32, drop_path_rate=0.0, **TOY)
    plain.init_weights()
    cp = SpecViT(img_size=32, with_cp=True, **TOY)
    cp.load_state_dict(plain.state_dict())
    x = torch.randn(2, 3, 32, 32)
    for m in (plain, cp):
        m(x)[0].square().mean().backward()
    for (n, a), b in zip(plain.named_parameters(), cp.parameters()):
        torch.testing.assert_close(a.grad, b.grad, msg=n)


def test_output_cls_token_pairs_maps_with_the_normed_cls():
    model = SpecViT(
        img_size=32, out_indices=(1, 3), output_cls_token=True, num_register_tokens=2, **TOY
    ).eval()
    model.init_weights()
    x = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        outs = model(x)
        tokens, hw = model._embed(x)
        for blk in model.blocks:
            tokens = blk(tokens, TokenLayout(model.num_cls, hw))
    fmap, cls = outs[1]
    assert fmap.shape == (2, 64, 4, 4) and cls.shape == (2, 64)
    torch.testing.assert_close(cls, model.norm(tokens)[:, 0])
    torch.testing.assert_close(fmap.flatten(2).transpose(1, 2), model.norm(tokens)[:, 3:])


def test_unused_final_norm_is_frozen():
    assert not any(
        p.requires_grad for p in SpecViT(img_size=32, final_norm=False, **TOY).norm.parameters()
    )
    assert all(p.requires_grad for p in SpecViT(img_size=32, **TOY).norm.parameters())


def test_run_blocks_in_pieces_equals_the_whole_run_and_the_forward():
    torch.manual_seed(0)
    m = SpecViT(img_size=32, out_indices=(3,), **TOY).eval()
    img = torch.randn(2, 3, 32, 48)
    x, layout = m.tokens(img)
    whole = m.run_blocks(x, layout)
    pieces = m.run_blocks(m.run_blocks(x, layout, 0, 1), layout, 1, 3)
    torch.testing.assert_close(m.run_blocks(pieces, layout, 3), whole, rtol=0, atol=0)
    fmap = m.norm(whole)[:, m.num_prefix_tokens :].transpose(1, 2).reshape(2, -1, *layout.hw)
    torch.testing.assert_close(m(img)[0], fmap, rtol=0, atol=0)


# SpecViT's module stays short enough to read: its options are resolved in
# vitspec.models.backbones.options, so the constructor only builds parts.
SOURCE = Path(spec_vit.__file__)
MAX_FILE_LINES = 399
MAX_INIT_LINES = 59  # the signature included: one line per argument


def test_the_module_is_under_400_lines():
    lines = len(SOURCE.read_text().splitlines())
    assert lines <= MAX_FILE_LINES, f'{SOURCE.name} has {lines} lines'


def test_the_constructor_is_under_60_lines():
    tree = ast.parse(SOURCE.read_text())
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == 'SpecViT']
    (init,) = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == '__init__']
    lines = init.end_lineno - init.lineno + 1
    assert lines <= MAX_INIT_LINES, f'SpecViT.__init__ has {lines} lines'


def test_the_constructor_raises_nothing_itself():
    """Every option rule is in `options`: the constructor has no raise of its own."""
    tree = ast.parse(SOURCE.read_text())
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == 'SpecViT']
    (init,) = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == '__init__']
    assert not [n for n in ast.walk(init) if isinstance(n, ast.Raise)]
