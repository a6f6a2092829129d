"""--amp bf16 / fp16 trains a detector on the CPU: NMS and RoIAlign run in float32 under autocast,
with vitspec's kernels (which do it themselves) and with mmcv's compiled CPU kernels (which take
float32 only, 'expected scalar type Float but found BFloat16': a wrapper runs them in float32;
the same wrapper runs compiled CUDA deformable attention in float32 under bfloat16)."""

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
from vitspec.mmcv_ops import autocast as mmcv_autocast
from vitspec.mmcv_ops.autocast import (
    FLOAT32_ONLY_OPS,
    float32_only_functions,
    in_float32,
    run_mmcv_ops_in_float32,
)
from vitspec.mmcv_ops.installed import COMPILED, TORCHVISION

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


class Float32Kernel(torch.autograd.Function):
    """A kernel that takes float32 only, as mmcv's refuse a dtype: x * w and its backward."""

    @staticmethod
    def forward(ctx, x, w):
        assert x.dtype == w.dtype == torch.float32 and not torch.is_autocast_enabled('cpu')
        ctx.save_for_backward(x, w)
        return x * w

    @staticmethod
    def backward(ctx, grad):
        assert grad.dtype == torch.float32
        x, w = ctx.saved_tensors
        return grad * w, grad * x


def test_refused_dtype_runs_in_float32_and_comes_back_in_its_own():
    """The wrapper's lines as the CUDA deformable attention runs them, on a device at hand."""
    forward = in_float32(Float32Kernel.forward, 'cpu', (torch.bfloat16,))
    backward = in_float32(Float32Kernel.backward, 'cpu', (torch.bfloat16,))
    kernel = type(
        'Wrapped',
        (torch.autograd.Function,),
        dict(forward=staticmethod(forward), backward=staticmethod(backward)),
    )
    x = torch.randn(8).bfloat16().requires_grad_()
    w = torch.randn(8).bfloat16()
    with torch.autocast('cpu', torch.bfloat16):
        out = kernel.apply(x, w)
    assert out.dtype == torch.bfloat16
    out.float().sum().backward()
    assert x.grad.dtype == torch.bfloat16
    torch.testing.assert_close(x.grad, w)
    with pytest.raises(AssertionError):  # unwrapped, the kernel refuses it
        Float32Kernel.apply(x.detach(), w)


def test_compiled_cuda_deformable_attention_is_wrapped_for_bfloat16_only(monkeypatch):
    from mmcv.ops.multi_scale_deform_attn import MultiScaleDeformableAttnFunction as msda

    monkeypatch.setattr(mmcv_autocast, 'ops_kernels', lambda: COMPILED)
    for function, _ in float32_only_functions():  # unwrapped again after the test
        for name in ('forward', 'backward'):
            if name in function.__dict__:
                monkeypatch.setattr(function, name, function.__dict__[name])
    run_mmcv_ops_in_float32()
    (op,) = [op for function, op in float32_only_functions() if function is msda]
    assert op.device == 'cuda' and op.dtypes == (torch.bfloat16,)  # its kernel takes half
    assert getattr(msda.forward, '_vitspec_float32', False)
    assert getattr(msda.backward, '_vitspec_float32', False)
    assert len(float32_only_functions()) == len(FLOAT32_ONLY_OPS)


def test_vitspecs_kernels_need_no_wrapper(monkeypatch):
    monkeypatch.setattr(mmcv_autocast, 'ops_kernels', lambda: TORCHVISION)
    assert float32_only_functions() == []


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
