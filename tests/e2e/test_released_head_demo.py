"""A released head (synthetic weights in DINOv2's depth BNHead layout) converted with
tools/convert_checkpoint.py --head-config and tested by tools/test.py on the demo NYU data: the
checkpoint passes the test's strict load and saved-config check, and a metric is printed."""

import json
import math
import re

import torch

from tests.checkpoints import dinov2_head_reference as ref
from tests.utils import ROOT, make_demo_data, run_tool
from vitspec.models import SpecViT

DEMO = 'configs/demo/lin4_specvit-tiny-p8_2xb2-100it_demo-nyu-112x144.py'
ARCH = dict(img_size=128, patch_size=8, embed_dims=128, num_layers=6, num_heads=4)


def test_converted_released_head_is_evaluated_by_tools_test(tmp_path):
    root = make_demo_data(tmp_path / 'demo', 'nyu', 4, 4)
    backbone = tmp_path / 'backbone.pth'
    torch.save(
        dict(meta=dict(backbone_cfg=ARCH), state_dict=SpecViT(**ARCH).state_dict()), backbone
    )
    head = tmp_path / 'dinov2_demo_nyu_linear4_head.pth'
    torch.save(dict(state_dict=ref.synthetic(ref.linear_depth_layout(128 * 4 * 2))), head)
    config = tmp_path / 'released.py'
    # DINOv2's released head has no BatchNorm; the backbone comes from the file written above
    model = dict(
        backbone=dict(init_cfg=dict(type='Pretrained', checkpoint=str(backbone))),
        decode_head=dict(with_bn=False),
    )
    config.write_text(f'_base_ = [{str(ROOT / DEMO)!r}]\nmodel = {model!r}\n')
    converted = tmp_path / 'converted.pth'
    run_tool(['tools/convert_checkpoint.py', head, converted, '--format', 'dinov2',
              '--head-config', config])  # fmt: skip
    proc = run_tool(
        [
            'tools/test.py',
            config,
            converted,
            '--work-dir',
            tmp_path / 'test',
            '--cfg-options',
            f'test_dataloader.dataset.data_root={root}',
        ]
    )
    line = re.search(r'^vitspec-metrics (.*)$', proc.stdout, re.M)
    assert line, proc.stdout[-3000:]
    assert math.isfinite(json.loads(line.group(1))['rmse'])
