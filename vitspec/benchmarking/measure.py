"""One setting measured: its models' workers timed in interleaved, rotating rounds.

Drift of the machine hits all models of a round alike; the speed against the baseline is the
median over rounds of the ratio of the two times of the same round, which cancels the host's
slower drift.
"""

import statistics

from vitspec.errors import ConfigError

from .machine import gemm_rate, model_gemm_shapes, why_not_measured
from .stats import paired_ratio
from .worker import Worker


def run_setting(setting, device, rounds, warmup, baseline=None):
    """Times the setting's models (its own 'rounds' and 'warmup' win over the arguments); the
    speeds refer to `baseline`, by default the first model."""
    refuse_baseline(setting, baseline)
    reason = why_not_measured(setting, device)
    if reason:
        return dict(setting=_describe(setting), device=str(device), skipped=reason, rows=[])
    cases = [
        Worker(
            m,
            setting['size'],
            setting['img'],
            setting['batch'],
            setting['dtype'],
            setting['mode'],
            device,
        )
        for m in setting['models']
    ]
    try:
        return _measure(setting, cases, device, rounds, warmup, baseline)
    finally:
        for case in cases:
            case.close()


def refuse_baseline(setting, baseline):
    """A `baseline` that names none of the setting's models is an error, not the first model."""
    if baseline is not None and baseline not in setting['models']:
        raise ConfigError(
            f'baseline {baseline!r} is not a model of the setting {setting["size"]} '
            f'{setting["dtype"]} {setting["mode"]}: give one of {", ".join(setting["models"])}'
        )


def interleaved_times(cases, rounds, warmup):
    """Each case's `warmup` untimed steps, then `rounds` rounds of one timed step per case:
    {case name: [seconds per round]}."""
    for case in cases:
        for _ in range(warmup):
            case.step()
    times = {c.name: [] for c in cases}
    for r in range(rounds):
        # interleaved, and rotated so that every case runs at every position in the round
        for case in cases[r % len(cases) :] + cases[: r % len(cases)]:
            times[case.name].append(case.timed())
    return times


def _measure(setting, cases, device, rounds, warmup, baseline):
    times = interleaved_times(cases, setting.get('rounds', rounds), setting.get('warmup', warmup))
    shapes = model_gemm_shapes(setting['size'], setting['img'], setting['batch'])
    rate = gemm_rate(device, setting['dtype'], shapes)
    base = baseline or cases[0].name
    rows = []
    for case in cases:
        median = statistics.median(times[case.name])
        ratio, low, high = paired_ratio(times[case.name], times[base])
        flops = case.flops()
        ops = case.op_counts() or dict(ops=None, kernels=None, casts=None, gemms=None)
        rows.append(
            dict(
                model=case.name,
                median_s=median,
                ratio_vs_baseline=ratio,
                speed_vs_baseline=1 / ratio,
                speed_interval=[1 / high, 1 / low],
                gflops=flops / 1e9,
                gemm_fraction=flops / median / rate,  # checked below
                memory_mb=_mb(case.memory_bytes()),
                compile_s=case.compile_seconds(),
                **ops,
                runs=len(times[case.name]),
                times_s=times[case.name],
            )
        )
    return dict(
        setting=_describe(setting),
        baseline=base,
        gemm_gflops_per_s=rate / 1e9,
        gemm_reference_unreliable=checked_gemm_fractions(rows),
        device=str(device),
        rows=rows,
    )


def checked_gemm_fractions(rows) -> bool:
    """A model cannot run faster than the dense GEMM rate it is measured against: when one
    seemingly does, the reference was measured too low (a noisy or throttled moment) and no
    fraction of it means anything. Then every row's ``gemm_fraction`` becomes None (the table
    shows why) and True is returned."""
    if all(r['gemm_fraction'] is None or r['gemm_fraction'] <= 1 for r in rows):
        return False
    for r in rows:
        r['gemm_fraction'] = None
    return True


def _describe(setting):
    return {k: v for k, v in setting.items() if k != 'models'}


def _mb(n):
    return None if n is None else n / 2**20
