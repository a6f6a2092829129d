"""The machine the benchmark runs on: its name, its dense GEMM rate, what it cannot time."""

import os
import time

import torch

# a setting's dtype: fp32 runs as built, bf16 and fp16 under autocast
DTYPES = dict(fp32=torch.float32, bf16=torch.bfloat16, fp16=torch.float16)


def gemm_rate(device, dtype, n=2048, rounds=5):
    """Dense matmul FLOP/s of this machine (best of a few rounds)."""
    a = torch.randn(n, n, device=device, dtype=DTYPES[dtype])
    b = torch.randn(n, n, device=device, dtype=DTYPES[dtype])
    a @ b
    best = float('inf')
    for _ in range(rounds):
        if device.type == 'cuda':
            torch.cuda.synchronize()
        start = time.perf_counter()
        a @ b
        if device.type == 'cuda':
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    return 2 * n**3 / best


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
