"""SpecViT as ViTDet's backbone: no CLS token, decomposed relative position bias, zero-padded
windows; parity with timm's VisionTransformerSAM and the MAE-checkpoint loading path."""

from functools import partial

import pytest
import torch
from timm.models.vision_transformer_sam import VisionTransformerSAM
from torch import nn

import vitspec.checkpoints.load as load
from vitspec.checkpoints import load_state_dict_strict
from vitspec.conversion.checkpoint import convert_file
from vitspec.layers.pos_embed import resample_pos_embed
from vitspec.models import SpecViT

TOY = dict(patch_size=16, embed_dims=32, num_layers=3, num_heads=4)
VITDET = dict(
    with_cls_token=False,
    pos_embed_cls=False,
    rel_pos_bias='decomposed',
    window_size=4,
    window_padding='zeros',
    global_attn_indexes=(1,),
    out_indices=(2,),
    final_norm=False,
)


def sam_reference():
    ref = VisionTransformerSAM(
        img_size=96,
        patch_size=16,
        embed_dim=32,
        depth=3,
        num_heads=4,
        use_rel_pos=True,
        window_size=4,
        global_attn_indexes=(1,),
        neck_chans=0,
        head_hidden_size=1,
        norm_layer=partial(nn.LayerNorm, eps=1e-6),
    ).eval()
    torch.manual_seed(0)
    with torch.no_grad():
        for p in ref.parameters():
            p.normal_(std=0.2)
    return ref


@pytest.mark.parametrize('size', [(96, 96), (96, 64)])
def test_matches_timm_sam_backbone(size):
    """6x6 grid in windows of 4 (padded to 8) and a global block; a 6x4 input resamples the
    position embedding (as timm, antialiased) and the global block's rel_pos_w (11 -> 7)."""
    ref = sam_reference()
    model = SpecViT(img_size=96, **TOY, **VITDET).eval()
    sd = {k: v for k, v in ref.state_dict().items() if not k.startswith(('neck', 'head'))}
    sd['pos_embed'] = sd['pos_embed'].flatten(1, 2)
    missing, unexpected = model.load_state_dict(sd, strict=False)
    assert unexpected == [] and all(k.startswith('norm.') for k in missing)
    x = torch.randn(2, 3, *size)
    with torch.no_grad():
        torch.testing.assert_close(model(x)[0], ref.forward_features(x), atol=1e-5, rtol=1e-5)
    assert model.cls_token is None and model.num_prefix_tokens == 0
    assert model.blocks[0].attn.rel_pos_h.shape == (2 * 4 - 1, 8)  # window
    assert model.blocks[1].attn.rel_pos_h.shape == (2 * 6 - 1, 8)  # img_size grid


def test_pretrain_img_size_keeps_the_pretraining_grid():
    """ViTDet: pos_embed stays at 224 / 16 = 14 and is resampled by get_abs_pos (bicubic, no
    antialiasing) to every input; img_size sets the global blocks' rel-pos grid."""
    model = SpecViT(
        img_size=128, pretrain_img_size=224, pos_embed_interp='vitdet', **TOY, **VITDET
    ).eval()
    assert model.pos_embed.shape == (1, 14 * 14, 32)
    assert model.blocks[1].attn.rel_pos_h.shape == (2 * 8 - 1, 8)
    torch.nn.init.normal_(model.pos_embed)
    x = torch.randn(1, 3, 128, 96)
    tokens, hw = model._embed(x)
    patches, _ = model.patch_embed(x)
    want = patches + resample_pos_embed(model.pos_embed, (8, 6), (14, 14), 0, 'vitdet')
    assert hw == (8, 6)
    torch.testing.assert_close(tokens, want)


def test_without_cls_token_refuses_what_needs_it():
    for bad in (
        dict(pos_embed_cls=True),
        dict(output_cls_token=True),
        dict(specialize=dict(norm=True)),
        dict(rel_pos_bias='table'),
    ):
        with pytest.raises(ValueError, match='with_cls_token=False'):
            SpecViT(img_size=64, **TOY, **dict(VITDET, **bad))
    with pytest.raises(ValueError, match='talking heads'):
        SpecViT(img_size=64, **TOY, talking_heads=True, rel_pos_bias='decomposed')


def test_zero_rel_pos_equals_no_rel_pos():
    plain = SpecViT(img_size=64, **TOY, **dict(VITDET, rel_pos_bias=None)).eval()
    plain.init_weights()
    model = SpecViT(img_size=64, **TOY, **VITDET).eval()
    missing = model.load_state_dict(plain.state_dict(), strict=False).missing_keys
    assert sorted(missing) == sorted(f'blocks.{i}.attn.rel_pos_{a}' for i in range(3) for a in 'hw')
    x = torch.randn(1, 3, 80, 64)
    with torch.no_grad():
        torch.testing.assert_close(model(x)[0], plain(x)[0])


def mae_layout(embed_dims=32, depth=3, grid=14):
    """Random weights in the layout of MAE's released pretraining checkpoints (timm names,
    CLS token, a CLS slot in pos_embed, final norm, no relative position bias)."""
    torch.manual_seed(0)
    sd = {
        'cls_token': torch.randn(1, 1, embed_dims),
        'pos_embed': torch.randn(1, 1 + grid * grid, embed_dims),
        'patch_embed.proj.weight': torch.randn(embed_dims, 3, 16, 16),
        'patch_embed.proj.bias': torch.randn(embed_dims),
        'norm.weight': torch.randn(embed_dims),
        'norm.bias': torch.randn(embed_dims),
    }
    shapes = {
        'norm1.weight': (embed_dims,),
        'norm1.bias': (embed_dims,),
        'attn.qkv.weight': (3 * embed_dims, embed_dims),
        'attn.qkv.bias': (3 * embed_dims,),
        'attn.proj.weight': (embed_dims, embed_dims),
        'attn.proj.bias': (embed_dims,),
        'norm2.weight': (embed_dims,),
        'norm2.bias': (embed_dims,),
        'mlp.fc1.weight': (4 * embed_dims, embed_dims),
        'mlp.fc1.bias': (4 * embed_dims,),
        'mlp.fc2.weight': (embed_dims, 4 * embed_dims),
        'mlp.fc2.bias': (embed_dims,),
    }
    for i in range(depth):
        sd.update({f'blocks.{i}.{k}': torch.randn(s) for k, s in shapes.items()})
    return {'model': sd}


def test_mae_checkpoint_loads_into_the_vitdet_backbone(tmp_path, monkeypatch):
    src, dst = tmp_path / 'mae_pretrain_toy.pth', tmp_path / 'vit_mae.pth'
    torch.save(mae_layout(), src)
    convert_file(str(src), str(dst), 'mae', num_heads=4)
    logged = []
    monkeypatch.setattr(load, 'print_log', lambda msg, logger=None: logged.append(msg))
    model = SpecViT(
        img_size=128,
        pretrain_img_size=224,
        pos_embed_interp='vitdet',
        **TOY,
        **VITDET,
        init_cfg=dict(type='Pretrained', checkpoint=str(dst)),
    )
    model.init_weights()
    sd = mae_layout()['model']
    torch.testing.assert_close(model.pos_embed, sd['pos_embed'][:, 1:])  # CLS slot dropped
    torch.testing.assert_close(model.blocks[2].mlp.fc2.weight, sd['blocks.2.mlp.fc2.weight'])
    rel = [f'blocks.{i}.attn.rel_pos_{a}' for i in range(3) for a in 'hw']
    assert all(torch.count_nonzero(model.get_parameter(k)) == 0 for k in rel)
    text = '\n'.join(logged)
    assert 'dropped for a backbone without CLS token: cls_token, pos_embed[:, 0]' in text
    assert all(k in text for k in rel)


def test_rel_pos_of_another_size_in_a_checkpoint_is_named():
    model = SpecViT(img_size=64, **TOY, **VITDET)
    sd = dict(model.state_dict())
    sd['blocks.1.attn.rel_pos_h'] = torch.zeros(9, 8)
    with pytest.raises(Exception, match=r'blocks\.1\.attn\.rel_pos_h: checkpoint \(9, 8\)'):
        load_state_dict_strict(model, sd)
