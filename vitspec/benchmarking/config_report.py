"""Timed configs (config_runs.run_configs) as a Markdown table."""

STEPS = dict(
    training='training steps (model.train_step', inference='inference (model.test_step, no grad'
)


def format_config_table(result):
    cuda = result['device'].startswith('cuda')
    memory = 'peak MB' if cuda else 'saved for backward MB'
    step = STEPS[result.get('mode', 'training')]
    lines = [
        f'{step}, random data) on {result["device"]}, speed vs {result["baseline"]}',
        f'| config | task | batch | input | precision | s/iter | images/s '
        f'| speed vs {result["baseline"]} (95 % interval) | {memory} |',
        '|---|---|---|---|---|---|---|---|---|',
    ]
    for r in result['rows']:
        precision = r['precision'] + (' (its fp16= key ignored)' if r['fp16_key_ignored'] else '')
        low, high = r['speed_interval']
        h, w = r['size']
        lines.append(
            f'| {r["name"]} | {r["task"]} | {r["batch"]} | {h}x{w} | {precision} '
            f'| {r["median_s"]:.3f} | {r["images_per_s"]:.1f} '
            f'| {r["speed_vs_baseline"]:.3f} ({low:.3f}-{high:.3f}) '
            f'| {r["memory_bytes"] / 2**20:.0f} |'
        )
    return '\n'.join(lines)
