import subprocess
import sys

import pytest
import timm
import torch
from mmengine.config import Config

from tests.utils import ROOT
from tests.vit_sizes import VIT_S14
from vitspec.checkpoints.architecture import infer_backbone_cfg
from vitspec.checkpoints.convert import convert_checkpoint
from vitspec.checkpoints.load import load_state_dict_strict
from vitspec.conversion.checkpoint import check_builds
from vitspec.errors import CheckpointError
from vitspec.fileio import safe_torch_load
from vitspec.models import SpecViT


def convert(*args):
    return subprocess.run(
        [sys.executable, str(ROOT / 'tools' / 'convert_checkpoint.py'), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_converted_file_rebuilds_the_source_through_init_cfg(tmp_path):
    ref = timm.create_model('deit3_small_patch16_224', pretrained=False, num_classes=1000).eval()
    src = tmp_path / 'deit3.pth'
    # the layout of facebookresearch/deit: {'model': ...} with gamma_1 / gamma_2 and a head
    torch.save(
        {
            'model': {
                k.replace('ls1.gamma', 'gamma_1').replace('ls2.gamma', 'gamma_2'): v
                for k, v in ref.state_dict().items()
            }
        },
        src,
    )
    dst = tmp_path / 'out' / 'converted.pth'
    proc = convert(src, dst, '--format', 'deit3')
    assert proc.returncode == 0, proc.stderr
    assert "'type': 'SpecViT'" in proc.stdout and "'embed_dims': 384" in proc.stdout

    cfg = safe_torch_load(str(dst))['meta']['backbone_cfg']
    assert cfg['pos_embed_cls'] is False and cfg['layer_scale_init'] is not None
    model = SpecViT(
        **cfg, out_indices=(11,), init_cfg=dict(type='Pretrained', checkpoint=str(dst))
    ).eval()
    model.init_weights()
    x = torch.randn(1, 3, 224, 224)
    with torch.no_grad():
        expected = ref.forward_intermediates(x, indices=[11], norm=True, intermediates_only=True)[0]
        assert (model(x)[0] - expected).abs().max() <= 1e-4


@pytest.mark.slow
def test_malformed_file_fails_without_writing(tmp_path):
    src = tmp_path / 'junk.pth'
    src.write_bytes(b'\x80\x02 not a checkpoint')
    dst = tmp_path / 'dst.pth'
    proc = convert(src, dst, '--format', 'timm')
    assert proc.returncode != 0
    assert 'junk.pth is not a readable PyTorch checkpoint' in proc.stderr
    assert not dst.exists() and list(tmp_path.iterdir()) == [src]


@pytest.mark.slow
def test_mismatched_architecture_names_the_problem(tmp_path):
    resnet = timm.create_model('resnet18', pretrained=False)
    src = tmp_path / 'resnet.pth'
    torch.save(resnet.state_dict(), src)
    proc = convert(src, tmp_path / 'dst.pth', '--format', 'timm')
    assert proc.returncode != 0
    assert "not a ViT checkpoint in SpecViT layout: no 'patch_embed.proj.weight'" in proc.stderr
    assert not (tmp_path / 'dst.pth').exists()


@pytest.mark.slow
def test_inconsistent_vit_checkpoint_lists_keys(tmp_path):
    sd = timm.create_model('vit_tiny_patch16_224', pretrained=False).state_dict()
    del sd['blocks.3.mlp.fc2.weight']
    sd['blocks.3.attn.qkv.weight'] = sd['blocks.3.attn.qkv.weight'][:10]
    src = tmp_path / 'broken.pth'
    torch.save(sd, src)
    proc = convert(src, tmp_path / 'dst.pth', '--format', 'timm')
    assert proc.returncode != 0
    assert 'missing keys (1): blocks.3.mlp.fc2.weight' in proc.stderr
    assert 'blocks.3.attn.qkv.weight: checkpoint (10, 192) vs model (576, 192)' in proc.stderr


def test_timm_name_offline_fails_clearly(monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setenv('HF_HUB_OFFLINE', '1')  # read at import time: patch the constant too
    monkeypatch.setattr(huggingface_hub.constants, 'HF_HUB_OFFLINE', True)
    model = SpecViT(
        **VIT_S14,
        init_cfg=dict(type='Pretrained', checkpoint='timm:vit_small_patch14_dinov2.lvd142m'),
    )
    with pytest.raises(
        CheckpointError,
        match="could not fetch pretrained timm weights 'vit_small_patch14_dinov2.lvd142m'",
    ):
        model.init_weights()


def dinov2_giant_layout(sd):
    """facebookresearch/dinov2's ViT-g names: SwiGLU as mlp.w12 (packed) / mlp.w3, mask_token."""
    out = {
        k.replace('.mlp.fc1.', '.mlp.w12.').replace('.mlp.fc2.', '.mlp.w3.'): v
        for k, v in sd.items()
    }
    out['mask_token'] = torch.zeros(1, sd['cls_token'].shape[-1])
    return out


@pytest.mark.slow
def test_dinov2_swiglu_checkpoint_converts_and_rebuilds(tmp_path):
    # width 192: timm's mlp_ratio 5.33334 then packs 2 * 512, DINOv2's width for 4 * 192
    ref = timm.create_model(
        'vit_giant_patch14_dinov2',
        pretrained=False,
        num_classes=0,
        img_size=56,
        depth=2,
        embed_dim=192,
        num_heads=3,
    ).eval()
    with torch.no_grad():
        for p in ref.parameters():
            p.add_(torch.randn_like(p) * 0.02)
    src = tmp_path / 'dinov2_vitg14_toy.pth'
    torch.save(dinov2_giant_layout(ref.state_dict()), src)
    dst = tmp_path / 'converted.pth'
    proc = convert(src, dst, '--format', 'dinov2')
    assert proc.returncode == 0, proc.stderr
    assert "'ffn_type': 'swiglu'" in proc.stdout and "'mlp_ratio': 4.0" in proc.stdout

    saved = safe_torch_load(str(dst))
    assert 'blocks.1.mlp.fc1.weight' in saved['state_dict']
    assert not any('w12' in k or 'w3' in k for k in saved['state_dict'])
    model = SpecViT(
        **saved['meta']['backbone_cfg'],
        out_indices=(1,),
        init_cfg=dict(type='Pretrained', checkpoint=str(dst)),
    ).eval()
    model.init_weights()
    x = torch.randn(1, 3, 56, 56)
    with torch.no_grad():
        expected = ref.forward_intermediates(x, indices=[1], norm=True, intermediates_only=True)[0]
        assert (model(x)[0] - expected).abs().max() <= 1e-4


def test_full_size_vit_g_architecture_and_config_fragment():
    """DINOv2 ViT-g/14's real shapes (meta tensors): the inferred architecture, and the
    backbone fragment configs/_base_/models/backbones/vit-g14_dinov2.py takes the weights."""
    with torch.device('meta'):
        ref = timm.create_model('vit_giant_patch14_dinov2', pretrained=False, num_classes=0)
    sd, cfg = convert_checkpoint(dinov2_giant_layout(ref.state_dict()), 'dinov2')
    assert {
        k: cfg[k]
        for k in (
            'img_size',
            'patch_size',
            'embed_dims',
            'num_layers',
            'num_heads',
            'mlp_ratio',
            'ffn_type',
            'pos_embed_interp',
        )
    } == dict(
        img_size=518,
        patch_size=14,
        embed_dims=1536,
        num_layers=40,
        num_heads=24,
        mlp_ratio=4.0,
        ffn_type='swiglu',
        pos_embed_interp='dinov2',
    )
    assert cfg['layer_scale_init'] and cfg['num_register_tokens'] == 0
    check_builds(sd, cfg, 'dinov2_vitg14_pretrain.pth')

    frag = Config.fromfile(str(ROOT / 'configs/_base_/models/backbones/vit-g14_dinov2.py'))
    backbone = frag.backbone.to_dict()
    backbone.pop('type')
    assert backbone.pop('init_cfg')['checkpoint'] == 'pretrain/vit-g14_dinov2.pth'
    assert backbone.pop('out_indices') == (9, 19, 29, 39)  # dinov2/hub/depthers.py
    assert {k: v for k, v in backbone.items() if k in cfg} == {
        k: cfg[k] for k in backbone if k in cfg
    }
    with torch.device('meta'):
        model = SpecViT(**backbone)
    assert model.blocks[0].mlp.fc2.in_features == 4096
    load_state_dict_strict(model, sd, assign=True)


def test_swiglu_width_that_no_ratio_gives_is_refused():
    sd = timm.create_model('vit_tiny_patch16_224', pretrained=False).state_dict()
    sd['blocks.0.mlp.fc1.weight'] = torch.zeros(2 * 100, 192)
    sd['blocks.0.mlp.fc2.weight'] = torch.zeros(192, 100)
    with pytest.raises(CheckpointError, match='SwiGLU hidden width 100 is not a multiple of 8'):
        infer_backbone_cfg(sd, 'timm')
    sd['blocks.0.mlp.fc1.weight'] = torch.zeros(300, 192)
    with pytest.raises(CheckpointError, match='fc1 gives 300 features, fc2 reads 100'):
        infer_backbone_cfg(sd, 'timm')
