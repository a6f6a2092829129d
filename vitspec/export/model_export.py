"""Export a model (SpecViT, a segmentor, a depth estimator) and check the file against it."""

import copy
import math
from typing import List, NamedTuple, Optional, Sequence, Tuple

import torch
from torch import nn

from .graphs import graph_for
from .limits import shape_limits
from .onnx_file import example_input, export_onnx
from .runtime import OnnxModel, max_abs_difference


class Exported(NamedTuple):
    path: str
    task: str  # 'backbone', 'segmentation' or 'depth'
    output_names: Tuple[str, ...]
    dynamic_batch: bool
    dynamic_size: bool
    fixed_size_reason: str  # why the image size is fixed ('' when it is dynamic or not asked)
    traced_size: Tuple[int, int]
    batch: int  # of the traced example: the batch of a file whose batch is fixed


class Parity(NamedTuple):
    batch: int
    size: Tuple[int, int]
    max_abs_difference: float


def spec_vit_of(model: nn.Module) -> Optional[nn.Module]:
    """The SpecViT of ``model`` (the model itself, its backbone, or a ViT-Adapter's vit)."""
    for candidate in (model, getattr(model, 'backbone', None)):
        if candidate is None:
            continue
        if hasattr(candidate, 'grid_size') and hasattr(candidate, 'patch_size'):
            return candidate
        vit = getattr(candidate, 'vit', None)
        if vit is not None and hasattr(vit, 'grid_size'):
            return vit
    return None


def tracing_size(model: nn.Module, size: Sequence[int]) -> Tuple[int, int]:
    """``size``, or one patch larger where its patch grid is the position embedding's own:
    SpecViT skips the resampling there, and a graph traced at that grid would skip it for
    every size. With windowed attention, also one patch taller while the grid fills its windows
    exactly: windowed attention masks the padding only where there is some, and a graph traced
    without would mask it for no size (wrong wherever the windows need padding)."""
    h, w = int(size[0]), int(size[1])
    vit = spec_vit_of(model)
    if vit is None:
        return (h, w)
    p = vit.patch_size
    windows = {m.window_size for m in model.modules() if getattr(m, 'window_size', 0) > 1}
    for _ in range(2 + len(windows)):  # each bump settles one rule; a bump may upset another
        grid = (math.ceil(h / p), math.ceil(w / p))
        if grid == tuple(vit.grid_size):
            h, w = h + p, w + p
        elif any(grid[0] % ws == 0 and grid[1] % ws == 0 for ws in windows):
            h += p
        else:
            break
    return (h, w)


def export_model(
    model: nn.Module,
    path: str,
    size: Sequence[int],
    dynamic: bool = True,
    metadata: Optional[dict] = None,
    batch: int = 1,
) -> Exported:
    """Write ``model`` (SpecViT, an mmseg segmentor or depth estimator) to ``path`` as ONNX.

    With ``dynamic`` the batch is symbolic, and so is the image size where the model allows
    (`limits.shape_limits`); it is then traced at ``size`` (one patch larger where that is the
    position embedding's grid), else exported for exactly ``size``. The model is not changed
    (a copy is exported). Without ``dynamic`` the batch is ``batch``. Raises
    ConfigError for a part that cannot export.
    """
    limits = shape_limits(model)  # refuses a part that has no ONNX form
    # a copy in eval mode, so that the caller's model keeps its mode; the parts whose export
    # form differs (DINOv2's resampling, the decomposed bias's lookup, Token Graying's DCT)
    # take it themselves while exporting (torch.compiler.is_exporting())
    graph = graph_for(copy.deepcopy(model).eval())
    dynamic_size = dynamic and limits.dynamic_size
    traced = tracing_size(model, size) if dynamic_size else (int(size[0]), int(size[1]))
    names = graph.output_names()
    info = dict(
        task=graph.task,
        input='image: (batch, 3, height, width) float32, '
        + ('RGB, 0-255' if graph.task != 'backbone' else "the backbone's normalized input"),
        outputs=list(names),
        dynamic_batch=dynamic,
        dynamic_size=dynamic_size,
        size=None if dynamic_size else list(traced),
        batch=None if dynamic else batch,
        torch=torch.__version__,
    )
    export_onnx(
        graph,
        example_input(traced, 2 if dynamic else batch),  # 2: a batch of 1 is specialized
        path,
        dynamic_batch=dynamic,
        dynamic_size=dynamic_size,
        metadata={**info, **(metadata or {})},
        output_names=names,
    )
    reason = '' if dynamic_size or not dynamic else limits.reason
    example_batch = 2 if dynamic else batch
    return Exported(
        str(path), graph.task, names, dynamic, dynamic_size, reason, traced, example_batch
    )


def check_parity(
    model: nn.Module, exported: Exported, sizes: Sequence[Sequence[int]] = (), batch: int = 2
) -> List[Parity]:
    """The largest |ONNX - PyTorch| of each output, onnxruntime on CPU against ``model``'s own
    forward (not the export copy's), at the traced size and each of ``sizes`` (only the traced
    one when the size is fixed), on random images; batches ``batch`` and ``batch + 1`` in turn
    (the file's own batch when it is fixed)."""
    reference = graph_for(model.eval())
    onnx_model = OnnxModel(exported.path)
    checks = [exported.traced_size]
    if exported.dynamic_size:
        checks += [tuple(s) for s in sizes]
    results = []
    for i, size in enumerate(checks):
        b = batch + i % 2 if exported.dynamic_batch else exported.batch
        image = example_input(size, b)
        if exported.task == 'backbone':
            image = (image - 127.5) / 64  # about what a normalized image spans
        with torch.no_grad():
            want = reference(image)
        got = onnx_model(image)
        results.append(Parity(b, tuple(size), max_abs_difference(got, want)))
    return results
