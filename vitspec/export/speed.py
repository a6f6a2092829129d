"""An exported file's speed under onnxruntime against the model's PyTorch eager forward, on
CPU: interleaved rounds, medians, and the median of the per-round ratios (drift of a shared
machine hits both alike)."""

import statistics
import time
from typing import NamedTuple

import torch
from torch import nn

from .onnx_file import example_input
from .runtime import OnnxModel


class SpeedComparison(NamedTuple):
    batch: int
    size: tuple
    threads: int
    rounds: int
    torch_ms: float  # median per batch
    onnx_ms: float
    speedup: float  # median over rounds of torch time / onnxruntime time


def _timed(fn, repeats: int) -> float:
    start = time.perf_counter()
    for _ in range(repeats):
        fn()
    return (time.perf_counter() - start) / repeats * 1e3


def compare_speed(
    graph: nn.Module,
    onnx_path: str,
    size,
    batch: int = 1,
    rounds: int = 10,
    repeats: int = 3,
    threads: int = 1,
) -> SpeedComparison:
    """Time ``graph`` (the torch module that was exported, eval mode, no grad) and the file on
    the same random batch, both on ``threads`` CPU threads, ``rounds`` alternating rounds of
    ``repeats`` calls each after one warm-up call of each."""
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        onnx_model = OnnxModel(onnx_path, threads=threads)
        image = example_input(size, batch)
        array = image.numpy()
        graph = graph.eval()
        with torch.no_grad():
            graph(image)
            onnx_model(array)
            times_torch, times_onnx = [], []
            for i in range(rounds):
                pair = [
                    lambda: times_torch.append(_timed(lambda: graph(image), repeats)),
                    lambda: times_onnx.append(_timed(lambda: onnx_model(array), repeats)),
                ]
                for run in pair if i % 2 == 0 else pair[::-1]:
                    run()
    finally:
        torch.set_num_threads(previous)
    ratios = [t / o for t, o in zip(times_torch, times_onnx)]
    return SpeedComparison(
        batch,
        tuple(size),
        threads,
        rounds,
        statistics.median(times_torch),
        statistics.median(times_onnx),
        statistics.median(ratios),
    )
