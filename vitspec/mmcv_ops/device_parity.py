"""mmcv's NMS, RoIAlign (forward and backward) and multi-scale deformable attention (in float32
and under bfloat16 autocast) on a device against the same ops on CPU, on whichever kernels are
installed: the first check of tools/gpu_check.sh. With device='cpu' both sides run on the CPU,
which executes every line of the comparison without a GPU (the tests do)."""

import json
import signal
import subprocess
import sys
from typing import NamedTuple

import torch
from mmcv.ops import MultiScaleDeformableAttention, RoIAlign, nms

from vitspec.diagnostics.failure_reason import failure_reason

from .autocast import run_mmcv_ops_in_float32

# The child process of ops_check_isolated: the checks as JSON on the last line of its output.
CHILD = (
    'import json, sys; from vitspec.mmcv_ops.device_parity import ops_against_cpu; '
    'print(json.dumps([list(check) for check in ops_against_cpu(sys.argv[1])]))'
)
# CUDA kernels add in another order than the CPU ones (atomicAdd in RoIAlign's backward).
FORWARD_ATOL = 1e-4
BACKWARD_ATOL = 1e-3
NUM_BOXES = 300
# bfloat16 keeps 8 bits of mantissa: the projections around the op round at about 1e-2.
BF16_ATOL = 5e-2
MSDA_SHAPES = ((16, 16), (8, 8))


class OpCheck(NamedTuple):
    name: str
    ok: bool
    detail: str


def nms_keep(boxes, scores, device) -> torch.Tensor:
    """The indices NMS keeps on `device`, sorted, on CPU."""
    _, keep = nms(boxes.to(device), scores.to(device), iou_threshold=0.5)
    return keep.cpu().sort().values


def roi_align_with_grad(features, rois, device):
    """RoIAlign's output on `device` and the gradient of its sum of squares, both on CPU. mmcv's
    RoIAlign module, not its `roi_align`: that is an autograd Function's `apply`, which takes no
    keyword arguments before torch 2.14 (TypeError on the H200's torch 2.11)."""
    x = features.to(device).requires_grad_()
    out = RoIAlign((7, 7), spatial_scale=1 / 8, sampling_ratio=2)(x, rois.to(device))
    out.pow(2).sum().backward()
    return out.detach().cpu(), x.grad.cpu()


def deformable_attention(attn, inputs, device, dtype=None) -> torch.Tensor:
    """mmcv's MultiScaleDeformableAttention on `device` (under `dtype` autocast) of ``inputs``
    (query, value, reference points), on CPU in float32. Its CUDA kernel refuses bfloat16:
    run_mmcv_ops_in_float32 runs it in float32 there."""
    attn = attn.to(device)
    query, value, ref = (t.to(device) for t in inputs)
    shapes = torch.tensor(MSDA_SHAPES, device=device)
    start = torch.cat((shapes.new_zeros(1), shapes.prod(1).cumsum(0)[:-1]))
    kind = torch.device(device).type
    with torch.autocast(kind, dtype or torch.float32, enabled=dtype is not None):
        out = attn(
            query,
            value=value,
            reference_points=ref,
            spatial_shapes=shapes,
            level_start_index=start,
        )
    return out.detach().float().cpu()


def ops_against_cpu(device, seed=0) -> list:
    """An OpCheck for NMS and one for RoIAlign: `device` against CPU on the same random boxes."""
    gen = torch.Generator().manual_seed(seed)
    xy = torch.rand(NUM_BOXES, 2, generator=gen) * 100
    boxes = torch.cat([xy, xy + 5 + torch.rand(NUM_BOXES, 2, generator=gen) * 30], dim=1)
    scores = torch.rand(NUM_BOXES, generator=gen)
    keep_cpu, keep_dev = (nms_keep(boxes, scores, d) for d in ('cpu', device))
    same_keep = torch.equal(keep_cpu, keep_dev)
    checks = [OpCheck('nms', same_keep, f'{len(keep_dev)} of {NUM_BOXES} boxes kept')]

    features = torch.randn(2, 8, 32, 32, generator=gen)
    batch = torch.randint(0, 2, (40, 1), generator=gen).float()
    rois = torch.cat([batch, boxes[:40] * 1.5], dim=1)  # image pixels; features: stride 8
    (out_cpu, grad_cpu), (out_dev, grad_dev) = (
        roi_align_with_grad(features, rois, d) for d in ('cpu', device)
    )
    forward = (out_cpu - out_dev).abs().max().item()
    backward = (grad_cpu - grad_dev).abs().max().item()
    ok = forward <= FORWARD_ATOL and backward <= BACKWARD_ATOL
    detail = f'max difference forward {forward:.1e}, backward {backward:.1e}'
    checks.append(OpCheck('roi_align', ok, detail))

    torch.manual_seed(seed)
    attn = MultiScaleDeformableAttention(32, 4, len(MSDA_SHAPES), 4, batch_first=True).eval()
    num_value = sum(h * w for h, w in MSDA_SHAPES)
    inputs = (
        torch.randn(2, 50, 32, generator=gen),
        torch.randn(2, num_value, 32, generator=gen),
        torch.rand(2, 50, len(MSDA_SHAPES), 2, generator=gen),
    )
    run_mmcv_ops_in_float32()
    cpu = deformable_attention(attn, inputs, 'cpu')
    fp32 = (deformable_attention(attn, inputs, device) - cpu).abs().max().item()
    bf16 = (deformable_attention(attn, inputs, device, torch.bfloat16) - cpu).abs().max().item()
    ok = fp32 <= FORWARD_ATOL and bf16 <= BF16_ATOL
    detail = f'max difference float32 {fp32:.1e}, bfloat16 autocast {bf16:.1e}'
    return checks + [OpCheck('ms_deform_attn', ok, detail)]


def ops_check_isolated(device, command=None) -> list:
    """`ops_against_cpu(device)` in a child process, so that a crash inside mmcv's compiled ops
    (seen: SIGSEGV in mmcv 2.1.0 built with CUDA 13.0) is one failed check, not the end of the
    caller. ``command``: the child's command line (default: CHILD for `device`)."""
    command = command or [sys.executable, '-c', CHILD, device]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        code = proc.returncode
        ended = f'signal {signal.Signals(-code).name}' if code < 0 else f'exit {code}'
        last = failure_reason(proc.stderr.strip() or proc.stdout, limit=200)
        return [OpCheck('ops', False, f'the check process ended with {ended}: {last}')]
    return [OpCheck(*check) for check in json.loads(proc.stdout.strip().splitlines()[-1])]
