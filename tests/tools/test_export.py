"""tools/export.py on a demo segmentation checkpoint (random weights, its config saved in it as
training saves it): the file, the onnxruntime check it prints, --backbone, and a refusal."""

import copy

import pytest
import torch

from tests.export.demo_models import DEMO_SEG, demo_model
from tools.export import main, parse_args
from vitspec.config.load import load_config
from vitspec.export import OnnxModel
from vitspec.inference.model_loading import build_model


def save_checkpoint(path, cfg, model):
    torch.save(dict(state_dict=model.state_dict(), meta=dict(cfg=cfg.pretty_text)), path)
    return str(path)


@pytest.fixture
def seg_checkpoint(tmp_path):
    return save_checkpoint(tmp_path / 'seg.pth', load_config(str(DEMO_SEG)), demo_model(DEMO_SEG))


def test_arguments_take_an_optional_config():
    args = parse_args(['ck.pth', '--out', 'm.onnx'])
    assert (args.config, args.checkpoint, args.dynamic) == (None, 'ck.pth', False)
    args = parse_args(['c.py', 'ck.pth', '--out', 'm.onnx', '--shape', '64', '96', '--dynamic'])
    assert (args.config, args.checkpoint, args.shape, args.dynamic) == (
        'c.py',
        'ck.pth',
        [64, 96],
        True,
    )


def test_dynamic_segmentation_export_from_the_saved_config(seg_checkpoint, tmp_path, capsys):
    out = tmp_path / 'seg.onnx'
    main(
        [seg_checkpoint, '--format', 'onnx', '--out', str(out), '--shape', '72', '104', '--dynamic']
    )
    printed = capsys.readouterr().out
    assert 'segmentation, outputs seg_logits, labels' in printed
    assert 'batch dynamic, image size dynamic' in printed
    checks = [line for line in printed.splitlines() if 'onnxruntime vs PyTorch' in line]
    assert len(checks) == 2 and all(float(c.split()[-1]) < 1e-5 for c in checks)
    onnx_model = OnnxModel(out)
    assert onnx_model.metadata['task'] == 'segmentation'
    assert len(onnx_model.metadata['classes']) == 150
    logits, labels = onnx_model(torch.rand(1, 3, 50, 66) * 255)
    assert logits.shape == (1, 150, 50, 66) and labels.shape == (1, 50, 66)


def test_fixed_backbone_export_with_the_config_given(seg_checkpoint, tmp_path, capsys):
    out = tmp_path / 'vit.onnx'
    main([str(DEMO_SEG), seg_checkpoint, '--out', str(out), '--backbone', '--no-check'])
    assert 'backbone, outputs block5' in capsys.readouterr().out
    assert OnnxModel(out).input_shape() == [1, 3, 128, 128]  # the backbone's img_size


def test_a_technique_that_cannot_export_exits_saying_why(tmp_path):
    cfg = load_config(str(DEMO_SEG))
    cfg.model.backbone.token_graying = dict(mode='svd', eps=0.7)
    checkpoint = save_checkpoint(tmp_path / 'svd.pth', cfg, build_model(copy.deepcopy(cfg)))
    with pytest.raises(SystemExit, match='no SVD operator'):
        main([checkpoint, '--out', str(tmp_path / 'x.onnx')])
    assert not (tmp_path / 'x.onnx').exists()


def test_an_earlier_export_a_folder_and_a_zero_shape_are_refused(seg_checkpoint, tmp_path):
    earlier = tmp_path / 'earlier.onnx'
    earlier.write_bytes(b'an earlier export')
    with pytest.raises(SystemExit, match='exists: choose another name, or pass --overwrite'):
        main([seg_checkpoint, '--out', str(earlier), '--no-check'])
    assert earlier.read_bytes() == b'an earlier export'
    with pytest.raises(SystemExit, match='is a folder: name a file in it'):
        main([seg_checkpoint, '--out', str(tmp_path), '--no-check'])
    with pytest.raises(SystemExit):
        parse_args([seg_checkpoint, '--out', str(tmp_path / 'm.onnx'), '--shape', '0', '0'])
