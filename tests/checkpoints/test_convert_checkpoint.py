import subprocess
import sys

import timm
import torch

from tests.utils import ROOT
from vitspec.engine import safe_torch_load
from vitspec.models import SpecViT


def convert(*args):
    return subprocess.run([sys.executable, str(ROOT / 'tools' / 'convert_checkpoint.py'),
                           *map(str, args)], capture_output=True, text=True, timeout=300)


def test_converted_file_rebuilds_the_source_through_init_cfg(tmp_path):
    ref = timm.create_model('deit3_small_patch16_224', pretrained=False, num_classes=1000).eval()
    src = tmp_path / 'deit3.pth'
    # the layout of facebookresearch/deit: {'model': ...} with gamma_1 / gamma_2 and a head
    torch.save({'model': {k.replace('ls1.gamma', 'gamma_1').replace('ls2.gamma', 'gamma_2'): v
                          for k, v in ref.state_dict().items()}}, src)
    dst = tmp_path / 'out' / 'converted.pth'
    proc = convert(src, dst, '--format', 'deit3')
    assert proc.returncode == 0, proc.stderr
    assert "'type': 'SpecViT'" in proc.stdout and "'embed_dims': 384" in proc.stdout

    cfg = safe_torch_load(str(dst))['meta']['backbone_cfg']
    assert cfg['pos_embed_cls'] is False and cfg['layer_scale_init'] is not None
    model = SpecViT(**cfg, out_indices=(11,),
                    init_cfg=dict(type='Pretrained', checkpoint=str(dst))).eval()
    model.init_weights()
    x = torch.randn(1, 3, 224, 224)
    with torch.no_grad():
        expected = ref.forward_intermediates(x, indices=[11], norm=True,
                                             intermediates_only=True)[0]
        assert (model(x)[0] - expected).abs().max() <= 1e-4


def test_malformed_file_fails_without_writing(tmp_path):
    src = tmp_path / 'junk.pth'
    src.write_bytes(b'\x80\x02 not a checkpoint')
    dst = tmp_path / 'dst.pth'
    proc = convert(src, dst, '--format', 'timm')
    assert proc.returncode != 0
    assert 'junk.pth is not a readable PyTorch checkpoint' in proc.stderr
    assert not dst.exists() and list(tmp_path.iterdir()) == [src]


def test_mismatched_architecture_names_the_problem(tmp_path):
    resnet = timm.create_model('resnet18', pretrained=False)
    src = tmp_path / 'resnet.pth'
    torch.save(resnet.state_dict(), src)
    proc = convert(src, tmp_path / 'dst.pth', '--format', 'timm')
    assert proc.returncode != 0
    assert "not a ViT checkpoint in SpecViT layout: no 'patch_embed.proj.weight'" in proc.stderr
    assert not (tmp_path / 'dst.pth').exists()


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
    import pytest
    from vitspec.engine import CheckpointError
    import huggingface_hub.constants
    monkeypatch.setenv('HF_HUB_OFFLINE', '1')  # read at import time: patch the constant too
    monkeypatch.setattr(huggingface_hub.constants, 'HF_HUB_OFFLINE', True)
    model = SpecViT(img_size=518, patch_size=14, embed_dims=384, num_layers=12, num_heads=6,
                    layer_scale_init=1e-5,
                    init_cfg=dict(type='Pretrained',
                                  checkpoint='timm:vit_small_patch14_dinov2.lvd142m'))
    with pytest.raises(CheckpointError, match="could not fetch pretrained timm weights "
                                              "'vit_small_patch14_dinov2.lvd142m'"):
        model.init_weights()
