"""--amp bf16 / fp16 trains a detector on the CPU: mmcv's CPU NMS and RoIAlign, which take float32
only ('expected scalar type Float but found BFloat16'), run in float32 under autocast."""

import pytest
import torch
from mmcv.ops import RoIAlign, batched_nms
from mmdet.registry import MODELS
from mmdet.structures import DetDataSample
from mmdet.structures.mask import BitmapMasks
from mmengine.config import Config
from mmengine.registry import DefaultScope
from mmengine.structures import InstanceData

import vitspec  # noqa: F401  (registers)
from tests.utils import ROOT
from vitspec.engine import FiniteLossAmpOptimWrapper

DEMO = 'configs/demo/mask-rcnn_specvit-tiny-p8_simplefpn_2xb4-800it_demo-coco-160x160.py'
NMS_CFG = dict(type='nms', iou_threshold=0.5)


@pytest.fixture(scope='module', autouse=True)
def cpu_amp_wrapper():
    """What tools/train.py --amp builds on a machine without a GPU."""
    return FiniteLossAmpOptimWrapper(
        optimizer=torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1), device='cpu'
    )


def boxes_and_scores(n=64):
    torch.manual_seed(0)
    xy = torch.rand(n, 2) * 100
    boxes = torch.cat([xy, xy + 10 + torch.rand(n, 2) * 40], dim=1)
    return boxes, torch.rand(n), torch.randint(0, 3, (n,))


@pytest.mark.parametrize('dtype', [torch.bfloat16, torch.float16])
def test_nms_under_cpu_autocast_keeps_what_float32_keeps(dtype):
    boxes, scores, labels = boxes_and_scores()
    boxes, scores = boxes.to(dtype), scores.to(dtype)  # as the RPN's come out of autocast
    with torch.autocast('cpu', dtype):
        dets, keep = batched_nms(boxes, scores, labels, NMS_CFG)
    expected_dets, expected_keep = batched_nms(boxes.float(), scores.float(), labels, NMS_CFG)
    assert torch.equal(keep, expected_keep)
    assert dets.dtype == dtype
    torch.testing.assert_close(dets.float(), expected_dets)


@pytest.mark.parametrize('dtype', [torch.bfloat16, torch.float16])
def test_roi_align_under_cpu_autocast_matches_float32_forward_and_backward(dtype):
    torch.manual_seed(0)
    feats = torch.randn(2, 4, 20, 20).to(dtype).requires_grad_()
    rois = torch.tensor([[0, 1.0, 2.0, 11.0, 15.0], [1, 0.0, 0.0, 19.0, 19.0]])
    layer = RoIAlign(output_size=7, spatial_scale=1.0, sampling_ratio=0)
    with torch.autocast('cpu', dtype):
        out = layer(feats, rois)
    assert out.dtype == dtype  # as on CUDA: mmdet writes it into a tensor of the features' dtype
    out.float().square().sum().backward()

    reference = feats.detach().float().requires_grad_()
    expected = layer(reference, rois)
    expected.square().sum().backward()
    torch.testing.assert_close(out.float(), expected, atol=0.02, rtol=0.02)
    assert feats.grad.dtype == dtype
    torch.testing.assert_close(feats.grad.float(), reference.grad, atol=0.05, rtol=0.05)


def test_float32_inputs_run_unchanged():
    boxes, scores, labels = boxes_and_scores()
    dets, keep = batched_nms(boxes, scores, labels, NMS_CFG)
    assert dets.dtype == torch.float32 and len(keep) > 0


def a_sample():
    sample = DetDataSample(
        metainfo=dict(
            img_shape=(160, 160),
            ori_shape=(160, 160),
            pad_shape=(160, 160),
            batch_input_shape=(160, 160),
            scale_factor=(1.0, 1.0),
        )
    )
    mask = torch.zeros(1, 160, 160, dtype=torch.uint8)
    mask[0, 20:80, 30:90] = 1
    sample.gt_instances = InstanceData(
        bboxes=torch.tensor([[30.0, 20.0, 90.0, 80.0]]),
        labels=torch.tensor([1]),
        masks=BitmapMasks(mask.numpy(), 160, 160),
    )
    return sample


def test_demo_mask_rcnn_trains_a_step_under_bf16_autocast(cpu_amp_wrapper):
    """The RPN's NMS, the RoI extractors' RoIAlign and the mask targets, forward and backward."""
    torch.manual_seed(0)
    with DefaultScope.overwrite_default_scope('mmdet'):
        model = MODELS.build(Config.fromfile(ROOT / DEMO).model)
    model.init_weights()
    wrapper = FiniteLossAmpOptimWrapper(
        optimizer=torch.optim.SGD(model.parameters(), lr=0.01), dtype='bfloat16', device='cpu'
    )
    with wrapper.optim_context(model):
        losses = model(torch.rand(2, 3, 160, 160), [a_sample(), a_sample()], mode='loss')
    loss, _ = model.parse_losses(losses)
    loss.backward()
    assert torch.isfinite(loss)
    assert model.backbone.patch_embed.proj.weight.grad.abs().sum() > 0
