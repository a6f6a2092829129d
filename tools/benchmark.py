"""Backbone speed and memory, side by side in ONE run: interleaved, repeated, medians, ratios.

    python tools/benchmark.py --preset readme            # the README table (CPU here)
    python tools/benchmark.py --models timm specvit specvit-spec --size s16 --img 224 --batch 8

Each configuration is built in its own worker process and timed in turn, one worker at a time,
round after round (the order rotating from round to round), so drift of the machine hits all
of them alike and none inherits another's heap (glibc is told to keep what it frees, see
STEADY_MALLOC). The table reports the median time per batch and the speed against the
baseline (the first model unless --baseline): the median over rounds of the ratio of the two
times of the SAME round, which cancels the host's slower drift, with its distribution-free 95 %
interval (order statistics). Memory: peak allocated on CUDA; on CPU, the bytes of
tensors saved for backward (activation memory), which is what gradient checkpointing reduces.
Also measures the machine's dense GEMM rate and the fraction of it each model achieves. bf16
is not timed on a CPU without AMX or AVX512-BF16, where it would only be emulated.
"""
import argparse
import json
import math
import multiprocessing
import operator
import os
import statistics
import sys
import time
from contextlib import nullcontext
from os import path as osp

import torch

sys.path.insert(0, osp.dirname(osp.dirname(osp.abspath(__file__))))

SIZES = dict(  # name: (embed_dims, layers, heads, patch)
    t8=(64, 4, 2, 8), s16=(384, 12, 6, 16), b16=(768, 12, 12, 16), l16=(1024, 24, 16, 16))
SPECVIT_VARIANTS = {
    'specvit': {},
    'specvit-spec': dict(layer_scale_init=1e-5, specialize=dict()),
    'specvit-ls': dict(layer_scale_init=1e-5),
    'specvit-lora': dict(layer_scale_init=1e-5, specialize=dict(lora_rank=16)),
    'specvit-tg-dct': dict(token_graying=dict(mode='dct', eps=0.7)),
    'specvit-tg-svd': dict(token_graying=dict(mode='svd', eps=0.7)),
    'specvit-cp': dict(with_cp=True),
}
PRESETS = {
    'readme': [
        dict(size='s16', img=224, batch=8, dtype='fp32', mode='inference', rounds=40,
             models=['timm', 'mmseg', 'specvit']),
        # the specialization's overhead among same-FLOP SpecViTs only
        dict(size='s16', img=224, batch=8, dtype='fp32', mode='inference', rounds=40,
             models=['specvit', 'specvit-ls', 'specvit-spec', 'specvit-lora']),
        dict(size='s16', img=224, batch=8, dtype='fp32', mode='training', rounds=40,
             models=['timm', 'specvit', 'specvit-ls', 'specvit-spec', 'specvit-tg-dct',
                     'specvit-tg-svd']),
        dict(size='s16', img=224, batch=8, dtype='bf16', mode='inference',
             models=['specvit', 'timm']),
        dict(size='b16', img=512, batch=1, dtype='fp32', mode='training',
             models=['specvit', 'specvit-cp'], rounds=3),
    ],
    'toy': [dict(size='t8', img=32, batch=2, dtype='fp32', mode='training',
                 models=['timm', 'specvit', 'specvit-spec'], rounds=2)],
}
# The performance targets (issue 7): (what, (setting, model), (setting, model), quantity,
# bound). The ratio is first / second; 'speed' compares medians inversely (higher is faster).
TARGETS = {
    'readme': [
        ('plain SpecViT vs timm, inference speed', (0, 'specvit'), (0, 'timm'), 'speed', '>= 1.00'),
        ('plain SpecViT vs mmseg, inference speed', (0, 'specvit'), (0, 'mmseg'), 'speed', '> 1.00'),
        ('specialized vs plain, inference time', (1, 'specvit-spec'), (1, 'specvit'), 'time',
         '<= 1.03'),
        ('specialized vs plain, training time', (2, 'specvit-spec'), (2, 'specvit'), 'time',
         '<= 1.05'),
        ('specialized vs plain, training memory', (2, 'specvit-spec'), (2, 'specvit'), 'memory',
         '<= 1.02'),
        ('Token Graying DCT vs plain, training time', (2, 'specvit-tg-dct'), (2, 'specvit'),
         'time', '<= 1.02'),
        ('Token Graying SVD vs plain, training time', (2, 'specvit-tg-svd'), (2, 'specvit'),
         'time', '<= 1.10'),
        ('bf16 vs fp32, inference speed', (3, 'specvit'), (0, 'specvit'), 'speed', '>= 1.60'),
        ('with_cp vs without, training memory at ViT-B 512', (4, 'specvit-cp'), (4, 'specvit'),
         'memory', '<= 0.50'),
    ],
}


def build(name, size):
    dims, layers, heads, patch = SIZES[size]
    if name == 'timm':
        import timm
        return timm.models.VisionTransformer(
            img_size=224, patch_size=patch, embed_dim=dims, depth=layers, num_heads=heads,
            num_classes=0, dynamic_img_size=True, global_pool='')
    if name == 'mmseg':
        from mmseg.models.backbones import VisionTransformer
        return VisionTransformer(img_size=224, patch_size=patch, embed_dims=dims,
                                 num_layers=layers, num_heads=heads, out_indices=(layers - 1,),
                                 final_norm=True, interpolate_mode='bicubic')
    from vitspec.models import SpecViT
    return SpecViT(img_size=224, patch_size=patch, embed_dims=dims, num_layers=layers,
                   num_heads=heads, out_indices=(layers - 1,), **SPECVIT_VARIANTS[name])


def _sum(out):
    if isinstance(out, (tuple, list)):
        return sum(_sum(o) for o in out)
    return out.float().sum()


class Case:
    """One model in one setting: builds it once, runs one timed batch per call."""

    def __init__(self, name, size, img, batch, dtype, mode, device):
        torch.manual_seed(0)
        self.name, self.mode, self.device = name, mode, device
        self.model = build(name, size).to(device)
        self.model.train(mode == 'training')  # mmseg's ViT.train() returns None: no chaining
        self.x = torch.randn(batch, 3, img, img, device=device)
        self.autocast = (torch.autocast(device.type, dtype=torch.bfloat16)
                         if dtype == 'bf16' else nullcontext())

    def step(self):
        if self.mode == 'inference':
            with torch.no_grad(), self.autocast:
                self.model(self.x)
        else:
            with self.autocast:
                loss = _sum(self.model(self.x))
            loss.backward()
            self.model.zero_grad(set_to_none=True)

    def timed(self):
        sync = torch.cuda.synchronize if self.device.type == 'cuda' else (lambda: None)
        sync()
        start = time.perf_counter()
        self.step()
        sync()
        return time.perf_counter() - start

    def flops(self):
        from torch.utils.flop_counter import FlopCounterMode
        with FlopCounterMode(display=False) as counter:
            self.step()
        return counter.get_total_flops()

    def memory_bytes(self):
        if self.device.type == 'cuda':
            torch.cuda.reset_peak_memory_stats()
            self.step()
            return torch.cuda.max_memory_allocated()
        if self.mode == 'inference':
            return None
        saved = 0

        def pack(t):
            nonlocal saved
            saved += t.numel() * t.element_size()
            return t
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), self.autocast:
            loss = _sum(self.model(self.x))
        loss.backward()
        self.model.zero_grad(set_to_none=True)
        return saved


def gemm_rate(device, dtype, n=2048, rounds=5):
    """Dense matmul FLOP/s of this machine (best of a few rounds)."""
    torch_dtype = torch.bfloat16 if dtype == 'bf16' else torch.float32
    a = torch.randn(n, n, device=device, dtype=torch_dtype)
    b = torch.randn(n, n, device=device, dtype=torch_dtype)
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
    return 2 * n ** 3 / best


def _serve(conn, args):
    """Worker process: builds one Case, then runs the methods the parent names."""
    torch.set_num_threads(args.pop('threads'))
    try:
        case = Case(**args)
    except Exception as exc:
        conn.send((False, f'{type(exc).__name__}: {exc}'))
        return
    conn.send((True, None))
    for method in iter(conn.recv, None):
        try:
            conn.send((True, getattr(case, method)()))
        except Exception as exc:
            conn.send((False, f'{type(exc).__name__}: {exc}'))


# glibc returns freed blocks over its mmap / trim thresholds to the OS, so that the next step
# takes page faults on them again; how often depends on the order of a model's allocations, not
# on its compute (seen: GELU 115-145 ms or 50 ms for the same model). Workers keep what they free.
STEADY_MALLOC = {'MALLOC_MMAP_THRESHOLD_': str(32 << 20), 'MALLOC_TRIM_THRESHOLD_': str(1 << 40)}


class Worker:
    """A Case in its own process, so that no model inherits another's heap and caches.

    Within one process, whichever model was built first tended to reach a higher share of the
    GEMM rate, whatever its code; one fresh process per model, with steady malloc settings
    (STEADY_MALLOC), gives each the same start. Only one worker runs at a time, so they do not
    compete for the cores.
    """

    def __init__(self, name, size, img, batch, dtype, mode, device):
        spawn = multiprocessing.get_context('spawn')
        self.name = name
        self.conn, child = spawn.Pipe()
        args = dict(name=name, size=size, img=img, batch=batch, dtype=dtype, mode=mode,
                    device=device, threads=torch.get_num_threads())
        self.process = spawn.Process(target=_serve, args=(child, args), daemon=True)
        unset = {k: v for k, v in STEADY_MALLOC.items() if k not in os.environ}  # user's win
        os.environ.update(unset)  # a spawned child's glibc reads them at start-up
        try:
            self.process.start()
        finally:
            for k in unset:
                del os.environ[k]
        self._reply()

    def _reply(self):
        ok, value = self.conn.recv()
        if not ok:
            raise RuntimeError(f'benchmark model {self.name!r}: {value}')
        return value

    def _call(self, method):
        time.sleep(0.01)  # let the previous worker's OpenMP threads stop spinning
        self.conn.send(method)
        return self._reply()

    def step(self):
        return self._call('step')

    def timed(self):
        return self._call('timed')

    def flops(self):
        return self._call('flops')

    def memory_bytes(self):
        return self._call('memory_bytes')

    def close(self):
        if self.process.is_alive():
            self.conn.send(None)
        self.process.join(timeout=30)


def why_not_measured(setting, device):
    """The reason a setting would time nothing of interest on this device, or None."""
    if (setting['dtype'] == 'bf16' and device.type == 'cpu'
            and not (torch.cpu._is_amx_tile_supported() or torch.cpu._is_avx512_bf16_supported())):
        return 'this CPU has neither AMX nor AVX512-BF16, so bf16 matmuls would be emulated'
    return None


def run_setting(setting, device, rounds, warmup, baseline=None):
    reason = why_not_measured(setting, device)
    if reason:
        return dict(setting=_describe(setting), device=str(device), skipped=reason, rows=[])
    cases = [Worker(m, setting['size'], setting['img'], setting['batch'], setting['dtype'],
                    setting['mode'], device) for m in setting['models']]
    try:
        return _measure(setting, cases, device, rounds, warmup, baseline)
    finally:
        for case in cases:
            case.close()


def _measure(setting, cases, device, rounds, warmup, baseline):
    for case in cases:
        for _ in range(warmup):
            case.step()
    times = {c.name: [] for c in cases}
    for r in range(setting.get('rounds', rounds)):
        # interleaved, and rotated so that every model runs at every position in the round
        for case in cases[r % len(cases):] + cases[:r % len(cases)]:
            times[case.name].append(case.timed())
    rate = gemm_rate(device, setting['dtype'])
    base = baseline if baseline in times else cases[0].name
    rows = []
    for case in cases:
        median = statistics.median(times[case.name])
        ratio, low, high = paired_ratio(times[case.name], times[base])
        flops = case.flops()
        rows.append(dict(model=case.name, median_s=median, ratio_vs_baseline=ratio,
                         speed_vs_baseline=1 / ratio, speed_interval=[1 / high, 1 / low],
                         gflops=flops / 1e9, gemm_fraction=flops / median / rate,
                         memory_mb=_mb(case.memory_bytes()), runs=len(times[case.name]),
                         times_s=times[case.name]))
    return dict(setting=_describe(setting), baseline=base,
                gemm_gflops_per_s=rate / 1e9, device=str(device), rows=rows)


def median_interval(values, level=0.95):
    """The median and a distribution-free interval holding it with at least `level` chance.

    The interval runs from the k-th smallest to the k-th largest value, k the largest with
    P(Binomial(n, 1/2) < k) <= (1 - level) / 2; with too few values it is [min, max].
    """
    s, n = sorted(values), len(values)
    below, k = 0.0, 0
    while k < n // 2 and below + math.comb(n, k) / 2 ** n <= (1 - level) / 2:
        below += math.comb(n, k) / 2 ** n
        k += 1
    k = max(k, 1)
    return statistics.median(s), s[k - 1], s[n - k]


def paired_ratio(times, base_times):
    """`times` / `base_times` round by round: the median ratio and its 95 % interval."""
    return median_interval([t / b for t, b in zip(times, base_times, strict=True)])


def _describe(setting):
    return {k: v for k, v in setting.items() if k != 'models'}


def _mb(n):
    return None if n is None else n / 2 ** 20


def format_table(result):
    s = result['setting']
    head = (f"{s['size']} {s['img']}x{s['img']} batch {s['batch']} {s['dtype']} {s['mode']} "
            f"on {result['device']}")
    if 'skipped' in result:
        return f"{head}: not measured, {result['skipped']}"
    head += f" (GEMM {result['gemm_gflops_per_s']:.0f} GFLOP/s), baseline {result['baseline']}"
    lines = [head, '| model | median ms | speed vs baseline (95 % interval) | GFLOPs '
                   '| GEMM fraction | memory MB |', '|---|---|---|---|---|---|']
    for r in result['rows']:
        mem = '-' if r['memory_mb'] is None else f"{r['memory_mb']:.0f}"
        low, high = r['speed_interval']
        lines.append(f"| {r['model']} | {r['median_s'] * 1e3:.1f} | {r['speed_vs_baseline']:.3f} "
                     f"({low:.3f}-{high:.3f}) | {r['gflops']:.1f} | {r['gemm_fraction']:.2f} "
                     f"| {mem} |")
    return '\n'.join(lines)


def check_targets(targets, results):
    """One line per target: the measured ratio, the bound and whether it holds.

    Two models of one setting are compared round by round (`paired_ratio`, with its 95 %
    interval); across settings (bf16 vs fp32), by their medians. A miss whose interval still
    reaches the bound is said to be within the noise.
    """
    lines = []
    for what, (i, a), (j, b), quantity, bound in targets:
        skipped = results[i].get('skipped') or results[j].get('skipped')
        if skipped:
            lines.append(f'- {what}: not measured ({skipped}) (target {bound})')
            continue
        row = {r['model']: r for r in results[i]['rows']}[a]
        ref = {r['model']: r for r in results[j]['rows']}[b]
        low = high = None
        if quantity == 'memory':
            ratio = row['memory_mb'] / ref['memory_mb']
        elif i == j:
            ratio, low, high = paired_ratio(row['times_s'], ref['times_s'])
        else:
            ratio = row['median_s'] / ref['median_s']
        if quantity == 'speed':
            ratio = 1 / ratio
            if low is not None:
                low, high = 1 / high, 1 / low
        op, limit = bound.split()
        holds = {'>=': operator.ge, '>': operator.gt, '<=': operator.le}[op]
        verdict = 'ok' if holds(ratio, float(limit)) else 'MISSED'
        interval = ''
        if low is not None:
            interval = f' (95 % interval {low:.3f}-{high:.3f})'
            if verdict == 'MISSED' and low <= float(limit) <= high:
                verdict += ', within the noise'
        lines.append(f'- {what}: {ratio:.3f}{interval} (target {bound}) {verdict}')
    return lines


def describe_device(device):
    """The processor in words, for the table's readers: a CPU's name and vector unit."""
    if device.type == 'cuda':
        return torch.cuda.get_device_name(device)
    name = 'unknown CPU'
    if osp.exists('/proc/cpuinfo'):
        with open('/proc/cpuinfo') as f:
            name = next((line.split(':', 1)[1].strip() for line in f
                         if line.startswith('model name')), name)
    return f'{name}, {torch.backends.cpu.get_cpu_capability()}, {torch.get_num_threads()} threads'


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--preset', choices=sorted(PRESETS))
    parser.add_argument('--models', nargs='+', choices=['timm', 'mmseg', *SPECVIT_VARIANTS],
                        metavar='MODEL', help=f'timm, mmseg, {", ".join(SPECVIT_VARIANTS)}')
    parser.add_argument('--size', default='s16', choices=sorted(SIZES))
    parser.add_argument('--img', type=int, default=224)
    parser.add_argument('--batch', type=int, default=8)
    parser.add_argument('--dtype', default='fp32', choices=['fp32', 'bf16'])
    parser.add_argument('--mode', default='inference', choices=['inference', 'training'])
    parser.add_argument('--baseline', help='model the ratios refer to (default: the first)')
    parser.add_argument('--rounds', type=int, default=15, help='interleaved timed rounds')
    parser.add_argument('--warmup', type=int, default=2)
    parser.add_argument('--device', default='cuda' if torch.cuda.is_available() else 'cpu')
    parser.add_argument('--out', default='benchmark.json', help='JSON file for the results')
    args = parser.parse_args(argv)
    if args.preset:
        settings = PRESETS[args.preset]
    elif args.models:
        settings = [dict(size=args.size, img=args.img, batch=args.batch, dtype=args.dtype,
                         mode=args.mode, models=args.models)]
    else:
        parser.error('give --preset or --models')
    device = torch.device(args.device)
    machine = describe_device(device)
    print(f'{machine}, torch {torch.__version__}\n')
    results = []
    for setting in settings:
        result = run_setting(setting, device, args.rounds, args.warmup, args.baseline)
        print(format_table(result) + '\n', flush=True)
        results.append(result)
    checks = check_targets(TARGETS.get(args.preset, []), results)
    if checks:
        print('targets:\n' + '\n'.join(checks) + '\n')
    with open(args.out, 'w') as f:
        json.dump(dict(command=' '.join(sys.argv), machine=machine, torch=torch.__version__,
                       threads=torch.get_num_threads(), results=results, targets=checks), f,
                  indent=1)
    print(f'wrote {args.out}')


if __name__ == '__main__':
    main()
