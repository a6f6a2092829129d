"""Record what mmcv's compiled CPU ops give on fixed inputs, for the parity tests of vitspec's
PyTorch / torchvision kernels (vitspec/mmcv_ops/kernels) on machines without the compiled ops.

Run once in an environment installed with `tools/install.sh --mmcv-ops`:

    python tools/record_mmcv_references.py tests/mmcv_ops/kernels/compiled_ops_reference.pt

Each case holds its inputs, arguments and the compiled op's outputs (and gradients for a fixed
output gradient), as tensors, numbers and strings only: the tests read it with
torch.load(weights_only=True). The compiled build has CPU kernels for NMS, NMS matching,
RoIAlign and (modulated) deformable convolution; the deformable attention, RoIPool and sigmoid
focal loss kernels are CUDA-only and are not recorded here.
"""

import argparse
import sys
from pathlib import Path

import mmcv
import torch
from mmcv.ops import (
    DeformConv2d,
    ModulatedDeformConv2d,
    RoIAlign,
    batched_nms,
    get_compiler_version,
    nms,
    nms_match,
)


def random_boxes(gen, n, scale=100.0, size=30.0):
    xy = torch.rand(n, 2, generator=gen) * scale
    return torch.cat([xy, xy + 1 + torch.rand(n, 2, generator=gen) * size], dim=1)


def nms_cases(gen) -> dict:
    cases = {}
    boxes = random_boxes(gen, 200)
    scores = torch.rand(200, generator=gen)
    for thr in (0.3, 0.5, 0.7):
        cases[f'nms_random_iou{thr}'] = dict(boxes=boxes, scores=scores, iou_threshold=thr)
    # ties: 50 distinct scores shared by 4 boxes each
    cases['nms_tied_scores'] = dict(
        boxes=boxes, scores=torch.rand(50, generator=gen).repeat(4), iou_threshold=0.5
    )
    # IoU exactly at the threshold (kept: mmcv drops above it): [0,0,4,1] vs [0,0,2,1] is 0.5,
    # vs [1,0,3,1] is 1/3 exactly representable only approximately
    edge = torch.tensor([[0, 0, 4, 1], [0, 0, 2, 1], [2, 0, 4, 1], [1, 0, 3, 1], [0, 0, 4, 2]])
    edge_scores = torch.tensor([0.9, 0.8, 0.7, 0.6, 0.5])
    for thr in (0.5, 0.5 - 1e-6, 1 / 3):
        cases[f'nms_edge_iou{thr:.7f}'] = dict(
            boxes=edge.float(), scores=edge_scores, iou_threshold=thr
        )
    # the legacy +1 box size, on integer boxes
    cases['nms_offset1'] = dict(
        boxes=random_boxes(gen, 100).round(), scores=scores[:100], iou_threshold=0.5, offset=1
    )
    for case in cases.values():
        case.setdefault('offset', 0)
        _, case['keep'] = nms(case['boxes'], case['scores'], case['iou_threshold'], case['offset'])
    return cases


def batched_nms_cases(gen) -> dict:
    boxes = random_boxes(gen, 300)
    scores = torch.rand(300, generator=gen)
    idxs = torch.randint(0, 5, (300,), generator=gen)
    case = dict(boxes=boxes, scores=scores, idxs=idxs, iou_threshold=0.6)
    dets, case['keep'] = batched_nms(boxes, scores, idxs, dict(iou_threshold=0.6))
    case['dets'] = dets
    return {'batched_nms': case}


def nms_match_cases(gen) -> dict:
    dets = torch.cat([random_boxes(gen, 120, size=20), torch.rand(120, 1, generator=gen)], 1)
    cases = {}
    for thr in (0.3, 0.6):
        groups = nms_match(dets, thr)
        cases[f'nms_match_iou{thr}'] = dict(
            dets=dets,
            iou_threshold=thr,
            groups=torch.cat(groups),
            group_sizes=torch.tensor([len(g) for g in groups]),
        )
    return cases


def roi_align_cases(gen) -> dict:
    cases = {}
    features = torch.randn(2, 4, 20, 28, generator=gen)  # non-square
    boxes = random_boxes(gen, 30, scale=150, size=80)
    boxes[:3, 2:] = boxes[:3, :2] + 0.3  # boxes smaller than a bin
    rois = torch.cat([torch.randint(0, 2, (30, 1), generator=gen).float(), boxes], 1)
    grad_out = torch.randn(30, 4, 7, 5, generator=gen)
    for aligned in (True, False):
        for ratio in (0, 2):
            x = features.clone().requires_grad_()
            out = RoIAlign((7, 5), 1 / 8, ratio, aligned=aligned)(x, rois)
            out.backward(grad_out)
            name = f'roi_align_aligned{int(aligned)}_ratio{ratio}'
            cases[name] = dict(
                features=features,
                rois=rois,
                grad_output=grad_out,
                output_size=[7, 5],
                spatial_scale=1 / 8,
                sampling_ratio=ratio,
                aligned=aligned,
                output=out.detach(),
                grad_features=x.grad,
            )
    # inputs a bfloat16 tensor holds exactly: the autocast test's reference
    case = dict(cases['roi_align_aligned1_ratio0'])
    case['features'] = features.bfloat16().float()
    x = case['features'].clone().requires_grad_()
    out = RoIAlign((7, 5), 1 / 8, 0, aligned=True)(x, rois)
    out.backward(grad_out)
    case.update(output=out.detach(), grad_features=x.grad)
    cases['roi_align_bf16_inputs'] = case
    return cases


def deform_conv_cases(gen) -> dict:
    cases = {}
    x = torch.randn(2, 4, 9, 12, generator=gen)
    for modulated in (False, True):
        torch.manual_seed(0)
        cls = ModulatedDeformConv2d if modulated else DeformConv2d
        conv = cls(4, 6, 3, stride=1, padding=1, dilation=1, groups=2, deform_groups=2)
        with torch.no_grad():
            conv.weight.normal_(generator=gen)
            if modulated:
                conv.bias.normal_(generator=gen)
        offset = torch.randn(2, 2 * 2 * 9, 9, 12, generator=gen) * 2
        mask = torch.rand(2, 2 * 9, 9, 12, generator=gen)
        grad_out = torch.randn(2, 6, 9, 12, generator=gen)
        inputs = [t.clone().requires_grad_() for t in (x, offset, mask)]
        args = inputs if modulated else inputs[:2]
        out = conv(*args)
        out.backward(grad_out)
        case = dict(
            input=x,
            offset=offset,
            weight=conv.weight.detach().clone(),
            grad_output=grad_out,
            output=out.detach(),
            grad_input=inputs[0].grad,
            grad_offset=inputs[1].grad,
            grad_weight=conv.weight.grad,
        )
        if modulated:
            case.update(
                mask=mask,
                bias=conv.bias.detach().clone(),
                grad_mask=inputs[2].grad,
                grad_bias=conv.bias.grad,
            )
        cases['modulated_deform_conv' if modulated else 'deform_conv'] = case
    return cases


def record() -> dict:
    if get_compiler_version().startswith('none'):
        raise SystemExit(
            "mmcv here runs on vitspec's kernels: record in an environment installed with "
            'tools/install.sh --mmcv-ops'
        )
    gen = torch.Generator().manual_seed(0)
    cases = {}
    for make in (nms_cases, batched_nms_cases, nms_match_cases, roi_align_cases, deform_conv_cases):
        cases.update(make(gen))
    return dict(
        recorded_with=f'mmcv {mmcv.__version__} compiled CPU ops ({get_compiler_version()}), '
        f'torch {torch.__version__}',
        cases=cases,
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('out', type=Path, help='the .pt file to write')
    args = parser.parse_args(argv)
    references = record()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(references, args.out)
    print(f'{len(references["cases"])} cases ({references["recorded_with"]}) -> {args.out}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
