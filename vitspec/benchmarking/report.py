"""A measured (or skipped) setting as a Markdown table."""

# aten ops of one eager training step, or inference forward, at batch 2 (Case.op_counts);
# kernels: the ops that are not views; attention: the SDPA backend that ran (math: none)
OP_COLUMNS = dict(ops='ops', kernels='kernels', casts='casts', gemms='GEMMs', attention='attention')


def format_table(result):
    s = result['setting']
    head = (
        f'{s["size"]} {s["img"]}x{s["img"]} batch {s["batch"]} {s["dtype"]} {s["mode"]} '
        f'on {result["device"]}'
    )
    if 'skipped' in result:
        return f'{head}: not measured, {result["skipped"]}'
    gemm = f'GEMM {result["gemm_gflops_per_s"]:.0f} GFLOP/s'
    if result.get('gemm_reference_unreliable'):
        gemm += ' measured below what a model reached: unreliable, no GEMM fraction shown'
    head += f' ({gemm}), baseline {result["baseline"]}'
    counted = any(r.get('ops') is not None for r in result['rows'])
    columns = [
        'model',
        'median ms',
        'speed vs baseline (95 % interval)',
        'GFLOPs',
        'GEMM fraction',
        'memory MB',
        'compile s',
        *(OP_COLUMNS.values() if counted else []),
    ]
    lines = [head, _row(columns), '|' + '---|' * len(columns)]
    for r in result['rows']:
        low, high = r['speed_interval']
        cells = [
            r['model'],
            f'{r["median_s"] * 1e3:.1f}',
            f'{r["speed_vs_baseline"]:.3f} ({low:.3f}-{high:.3f})',
            f'{r["gflops"]:.1f}',
            _or_dash(r['gemm_fraction'], '.2f'),
            _or_dash(r['memory_mb'], '.1f'),
            _or_dash(r['compile_s'], '.0f'),
            *(
                [_or_dash(r.get(k), 'd' if k != 'attention' else 's') for k in OP_COLUMNS]
                if counted
                else []
            ),
        ]
        lines.append(_row(cells))
    return '\n'.join(lines)


def _row(cells):
    return '| ' + ' | '.join(cells) + ' |'


def _or_dash(value, spec):
    return '-' if value is None else format(value, spec)
