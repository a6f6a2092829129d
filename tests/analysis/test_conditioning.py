"""The conditioning diagnostic: kappa = sigma_max / sigma_min of the token matrices at each block's
input and stage outputs, checked against numpy on fixed matrices and against the stages it
claims to read; tools/analyze_conditioning.py on real ADE20K images."""

import json

import numpy as np
import pytest
import torch
from PIL import Image

from tests.utils import ROOT
from tools import analyze_conditioning
from vitspec.analysis import conditioning as cn
from vitspec.errors import DataFileError
from vitspec.models import SpecViT

FIXED = np.array(
    [[4.0, 1.0, 0.5], [2.0, 3.0, 1.0], [0.0, 1.0, 5.0], [1.0, 1.0, 1.0], [3.0, 0.0, 2.0]]
)
DEMO = ROOT / 'configs/demo/fcn_specvit-tiny-p8-plain_2xb4-500it_demo-ade20k-128x128.py'


def test_condition_number_is_numpys_two_norm_condition_number():
    assert cn.condition_number(torch.tensor(FIXED)).item() == pytest.approx(
        np.linalg.cond(FIXED, 2), rel=1e-12
    )
    assert cn.condition_number(torch.tensor(FIXED.T)).item() == pytest.approx(
        np.linalg.cond(FIXED.T, 2), rel=1e-12
    )
    batch = torch.stack([torch.tensor(FIXED), 2 * torch.tensor(FIXED) + 1])
    expected = [np.linalg.cond(FIXED, 2), np.linalg.cond(2 * FIXED + 1, 2)]
    np.testing.assert_allclose(cn.condition_number(batch.float()).numpy(), expected, rtol=1e-5)
    rank_one = torch.ones(4, 3)
    assert cn.condition_number(rank_one).item() > 1e15  # sigma_min is 0 up to rounding


def toy(**kwargs):
    torch.manual_seed(0)
    model = SpecViT(img_size=32, patch_size=8, embed_dims=16, num_layers=3, num_heads=2, **kwargs)
    model.init_weights()
    return model.eval()


def test_each_place_is_the_token_matrix_there():
    model = toy(num_register_tokens=2)
    images = torch.randn(2, 3, 32, 40)
    kappas = cn.block_conditioning(model, images)
    assert {k: tuple(v.shape) for k, v in kappas.items()} == {s: (3, 2) for s in cn.STAGES}
    torch.testing.assert_close(
        kappas['input'][1:], kappas['mlp'][:-1]
    )  # a block's output feeds the next

    x, layout = model.tokens(images)
    assert x.shape[1] == 1 + 2 + 4 * 5  # CLS, registers, the 4 x 5 patches
    torch.testing.assert_close(kappas['input'][0], cn.condition_number(x))
    after_attention = model.blocks[0].attention_stage(x, layout)
    torch.testing.assert_close(kappas['attention'][0], cn.condition_number(after_attention))


def test_without_the_attention_skip_the_branch_alone_is_measured():
    images = torch.randn(2, 3, 32, 32)
    plain, without = toy(), toy(skip=dict(attn=False, blocks=[0]))
    without.load_state_dict(plain.state_dict())
    k_plain, k_without = (
        cn.block_conditioning(plain, images),
        cn.block_conditioning(without, images),
    )
    torch.testing.assert_close(k_plain['input'][0], k_without['input'][0])
    assert not torch.allclose(k_plain['attention'][0], k_without['attention'][0])
    x, layout = plain.tokens(images)
    blk = plain.blocks[0]
    branch = blk.ls1(blk.attn(blk.norm1(x, layout.num_cls), layout), layout.num_cls)
    torch.testing.assert_close(k_without['attention'][0], cn.condition_number(branch))


def test_image_inputs_from_files_folders_and_patterns(tmp_path, capsys):
    """Images as tools/infer.py finds them: a GIF is one, a text file is not and is named."""
    Image.new('RGB', (4, 4)).save(tmp_path / 'b.png')
    Image.new('RGB', (4, 4)).save(tmp_path / 'c.gif')
    for name in ('a.jpg', 'notes.txt'):
        (tmp_path / name).write_bytes(b'')
    expected = [str(tmp_path / name) for name in ('a.jpg', 'b.png', 'c.gif')]
    assert cn.image_paths([str(tmp_path)]) == expected
    assert f'skipped {tmp_path / "notes.txt"}: empty file' in capsys.readouterr().err
    assert cn.image_paths([str(tmp_path / '*.png')]) == [str(tmp_path / 'b.png')]
    with pytest.raises(DataFileError, match='missing.jpg does not exist'):
        cn.image_paths([str(tmp_path / 'missing.jpg')])
    (tmp_path / 'empty').mkdir()
    with pytest.raises(DataFileError, match='empty holds no images'):
        cn.image_paths([str(tmp_path / 'empty')])


def test_the_tool_on_real_ade20k_images(realdata, tmp_path, capsys):
    images = realdata / 'ade20k' / 'ADEChallengeData2016' / 'images' / 'validation'
    out, report = tmp_path / 'conditioning.png', tmp_path / 'conditioning.json'
    argv = ['--models', str(DEMO), '--images', str(images), '--out', str(out)]
    analyze_conditioning.main(
        argv + ['--json', str(report), '--token-graying', 'dct', '0.7', '--size', '64']
    )
    printed = capsys.readouterr().out
    assert out.read_bytes().startswith(b'\x89PNG')
    data = json.loads(report.read_text())
    assert len(data['images']) == len(list(images.glob('*.jpg'))) > 1
    plain, grayed = data['median_log_kappa'].values()  # the model, then it with Token Graying
    assert len(plain['input']) == 6 and all(np.isfinite(plain['attention']))
    assert grayed['input'][0] < plain['input'][0]  # the claim Token Graying is made for
    assert '+ token graying dct 0.7' in printed and '| block | input | attention | mlp |' in printed


def test_unreadable_images_are_skipped_and_named(tmp_path, capsys):
    from vitspec.analysis.feature_maps import load_images

    Image.new('RGB', (40, 30)).save(tmp_path / 'good.png')
    (tmp_path / 'broken.jpg').write_bytes(b'not a jpeg')
    paths = [str(tmp_path / 'broken.jpg'), str(tmp_path / 'good.png')]
    kept, images = load_images(paths, 16)
    assert kept == [str(tmp_path / 'good.png')] and images[0].shape == (16, 16, 3)
    assert f'skipped {tmp_path / "broken.jpg"}' in capsys.readouterr().err
    with pytest.raises(DataFileError, match='none of the 1 image'):
        load_images(paths[:1], 16)
