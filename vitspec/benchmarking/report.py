"""A measured (or skipped) setting as a Markdown table."""


def format_table(result):
    s = result['setting']
    head = (
        f'{s["size"]} {s["img"]}x{s["img"]} batch {s["batch"]} {s["dtype"]} {s["mode"]} '
        f'on {result["device"]}'
    )
    if 'skipped' in result:
        return f'{head}: not measured, {result["skipped"]}'
    head += f' (GEMM {result["gemm_gflops_per_s"]:.0f} GFLOP/s), baseline {result["baseline"]}'
    lines = [
        head,
        '| model | median ms | speed vs baseline (95 % interval) | GFLOPs '
        '| GEMM fraction | memory MB | compile s |',
        '|---|---|---|---|---|---|---|',
    ]
    for r in result['rows']:
        mem = '-' if r['memory_mb'] is None else f'{r["memory_mb"]:.0f}'
        compile_s = '-' if r['compile_s'] is None else f'{r["compile_s"]:.0f}'
        low, high = r['speed_interval']
        lines.append(
            f'| {r["model"]} | {r["median_s"] * 1e3:.1f} | {r["speed_vs_baseline"]:.3f} '
            f'({low:.3f}-{high:.3f}) | {r["gflops"]:.1f} | {r["gemm_fraction"]:.2f} '
            f'| {mem} | {compile_s} |'
        )
    return '\n'.join(lines)
