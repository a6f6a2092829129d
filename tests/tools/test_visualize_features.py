"""tools/visualize_features.py: PCA grid and cosine plot, from configs, config=checkpoint and
converted checkpoints; byte-identical output for a fixed seed."""

import numpy as np
import pytest
import torch
from PIL import Image

from tests.utils import ROOT, run_tool
from vitspec.analysis import feature_maps as vf
from vitspec.analysis.backbone_source import load_backbone

PLAIN = ROOT / 'configs/demo/fcn_specvit-tiny-p8-plain_2xb4-500it_demo-ade20k-128x128.py'
SPEC = ROOT / 'configs/demo/fcn_specvit-tiny-p8-spec_2xb4-500it_demo-ade20k-128x128.py'
TOY = dict(
    img_size=32,
    patch_size=8,
    embed_dims=32,
    num_layers=3,
    num_heads=2,
    layer_scale_init=1e-5,
    num_register_tokens=2,
)


def images(tmp_path, n=2):
    rng = np.random.default_rng(0)
    paths = []
    for i in range(n):
        path = tmp_path / f'img{i}.png'
        Image.fromarray(rng.integers(0, 255, (40 + 8 * i, 48, 3), dtype=np.uint8)).save(path)
        paths.append(str(path))
    return paths


def converted(tmp_path):
    from vitspec.models.backbones.spec_vit import SpecViT

    torch.manual_seed(1)
    model = SpecViT(**TOY)
    model.init_weights()
    path = tmp_path / 'converted.pth'
    torch.save(dict(meta=dict(backbone_cfg=TOY), state_dict=model.state_dict()), path)
    return str(path), model


def run(tmp_path, models, name, seed=0, cell=48):
    out, cos = tmp_path / f'{name}.png', tmp_path / f'{name}_cos.png'
    run_tool(
        [
            'tools/visualize_features.py',
            '--models',
            *models,
            '--images',
            *images(tmp_path),
            '--out',
            out,
            '--cosine-out',
            cos,
            '--size',
            32,
            '--cell',
            cell,
            '--seed',
            seed,
        ]
    )
    return out, cos


@pytest.mark.slow
def test_grid_shape_and_determinism(tmp_path):
    ckpt, _ = converted(tmp_path)
    out1, cos1 = run(tmp_path, [PLAIN, SPEC, ckpt], 'a')
    out2, cos2 = run(tmp_path, [PLAIN, SPEC, ckpt], 'b')
    out3, _ = run(tmp_path, [PLAIN, SPEC, ckpt], 'c', seed=1)
    with Image.open(out1) as grid:
        assert grid.size == (4 * 48, vf.HEADER_PX + 2 * 48) and grid.mode == 'RGB'
        pixels = np.asarray(grid)
    assert pixels[vf.HEADER_PX :, 48:].std() > 10  # the PCA maps are not blank
    assert out1.read_bytes() == out2.read_bytes() and cos1.read_bytes() == cos2.read_bytes()
    assert out1.read_bytes() != out3.read_bytes()  # the seed sets the random weights
    with Image.open(cos1) as plot:
        assert plot.size == (600, 400)


def test_config_with_checkpoint_uses_its_weights(tmp_path):
    """CONFIG=CHECKPOINT takes the backbone.* weights of a whole-model checkpoint."""
    random_model, _ = load_backbone(str(PLAIN), seed=3)
    ckpt = tmp_path / 'iter_1.pth'
    torch.save(
        dict(state_dict={f'backbone.{k}': v for k, v in random_model.state_dict().items()}), ckpt
    )
    loaded, label = load_backbone(f'{PLAIN}={ckpt}', seed=0)
    assert 'random' not in label
    assert torch.equal(loaded.pos_embed, random_model.pos_embed)


def test_cosine_is_per_block_and_uses_patches_only(tmp_path):
    """Registers sit between CLS and the patches: they are not counted as patches."""
    _, model = converted(tmp_path)
    model.eval()
    x = torch.randn(1, 3, 32, 32)
    values = vf.cls_patch_cosine(model, x)
    assert len(values) == TOY['num_layers']
    tokens = []
    model.blocks[0].norm1.register_forward_hook(lambda m, i, o: tokens.append(o))
    model(x)
    t = tokens[0][0]
    expected = torch.cosine_similarity(t[:1], t[1 + 2 :], dim=-1).mean().item()
    assert values[0] == pytest.approx(expected)


def test_pca_is_sign_stable_and_in_unit_range():
    feats = [torch.randn(4, 4, 16), torch.randn(3, 5, 16)]
    a = vf.pca_rgb(feats)
    assert [m.shape for m in a] == [(4, 4, 3), (3, 5, 3)]
    assert all(0 <= m.min() and m.max() <= 1 for m in a)
    perm = torch.randperm(16)  # reordered channels: same components, same signs
    b = vf.pca_rgb([f[..., perm] for f in feats])
    c = vf.pca_rgb([-f for f in feats])  # negated features: mirrored colours
    for x, y, z in zip(a, b, c):
        np.testing.assert_allclose(x, y, atol=1e-6)
        np.testing.assert_allclose(x, 1 - z, atol=1e-6)


@pytest.mark.slow
def test_cli_on_real_images(tmp_path, realdata):
    imgs = sorted((realdata / 'ade20k').rglob('*.jpg'))[:2]
    out = tmp_path / 'real.png'
    proc = run_tool(
        [
            'tools/visualize_features.py',
            '--models',
            SPEC,
            '--images',
            *imgs,
            '--out',
            out,
            '--size',
            '64',
            '--cell',
            '64',
            '--labels',
            'spec',
        ]
    )
    assert 'cos(CLS, patch) per block' in proc.stdout
    with Image.open(out) as grid:
        assert grid.size == (2 * 64, vf.HEADER_PX + 2 * 64)
