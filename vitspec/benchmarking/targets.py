"""Checking measured results against a preset's performance targets."""

import operator

from .stats import paired_ratio


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
