"""The machine the benchmark runs on: its name, its dense GEMM rate, what it cannot time."""

import os
import time

import torch

from .models import SIZES

# a setting's dtype: fp32 runs as built, bf16 and fp16 under autocast
DTYPES = dict(fp32=torch.float32, bf16=torch.bfloat16, fp16=torch.float16)


# Square GEMMs of a few sizes: the best rate of the BLAS needs large enough operands, and which
# size reaches it depends on the library and the cache sizes.
SQUARE_SIDES = (512, 1024, 2048)
MIN_SECONDS = 0.05  # per timed round: enough calls that the timer's resolution does not matter


def gemm_rate(device, dtype, shapes=(), squares=SQUARE_SIDES, rounds=5, timer=time.perf_counter):
    """Dense matmul FLOP/s of this machine, in this process's threads and ``dtype``: the best
    over square GEMMs of the sides ``squares`` and the given ``shapes`` (m, k, n), a model's
    own linear layers (model_gemm_shapes), each timed in ``rounds`` rounds of enough calls to
    last MIN_SECONDS, the best round counting. A model is then measured against the best rate
    this BLAS reached, on shapes like its own."""
    all_shapes = [(n, n, n) for n in squares] + [tuple(map(int, s)) for s in shapes]
    return max(_rate(device, DTYPES[dtype], m, k, n, rounds, timer) for m, k, n in all_shapes)


def model_gemm_shapes(size, img, batch):
    """(m, k, n) of the linear layers of a ViT of ``size`` (models.SIZES) on ``batch`` images of
    side ``img``: qkv, attention projection, MLP in and out (CLS and registers left out)."""
    dims, _, _, patch = SIZES[size]
    tokens = batch * (img // patch) ** 2
    return [
        (tokens, dims, 3 * dims),
        (tokens, dims, dims),
        (tokens, dims, 4 * dims),
        (tokens, 4 * dims, dims),
    ]


def _rate(device, dtype, m, k, n, rounds, timer):
    a = torch.randn(m, k, device=device, dtype=dtype)
    b = torch.randn(k, n, device=device, dtype=dtype)

    def run(calls):
        _sync(device)
        start = timer()
        for _ in range(calls):
            torch.mm(a, b)
        _sync(device)
        return timer() - start

    calls, seconds = 1, run(1)  # also the warm-up
    while seconds < MIN_SECONDS and calls < 2**16:
        calls *= 2
        seconds = run(calls)
    best = min([seconds] + [run(calls) for _ in range(rounds - 1)])
    return 2 * m * k * n * calls / max(best, 1e-12)


def _sync(device):
    if device.type == 'cuda':
        torch.cuda.synchronize(device)


def why_not_measured(setting, device):
    """The reason a setting would time nothing of interest on this device, or None."""
    if setting.get('device', device.type) != device.type:
        return f'a setting for {setting["device"]}, not timed on {device.type}'
    if (
        setting['dtype'] == 'bf16'
        and device.type == 'cpu'
        and not (torch.cpu._is_amx_tile_supported() or torch.cpu._is_avx512_bf16_supported())
    ):
        return 'this CPU has neither AMX nor AVX512-BF16, so bf16 matmuls would be emulated'
    if setting['dtype'] == 'fp16' and device.type == 'cpu':
        units = torch.cpu.get_capabilities()
        if not (units.get('amx_fp16') or units.get('avx512_fp16')):
            return (
                'this CPU has neither AMX-FP16 nor AVX512-FP16, so fp16 matmuls would be emulated'
            )
    return None


def describe_device(device):
    """The processor in words, for the table's readers: a CPU's name and vector unit."""
    if device.type == 'cuda':
        return torch.cuda.get_device_name(device)
    name = 'unknown CPU'
    if os.path.exists('/proc/cpuinfo'):
        with open('/proc/cpuinfo') as f:
            name = next(
                (line.split(':', 1)[1].strip() for line in f if line.startswith('model name')), name
            )
    return f'{name}, {torch.backends.cpu.get_cpu_capability()}, {torch.get_num_threads()} threads'
