"""The section of docs/reproduce.md on comparing finished runs with the ledger and contributing a
measured result (result_comparison.py does what it describes)."""

from .ledger_metrics import LEDGER_METRICS


def compare_section() -> list:
    units = '; '.join(
        f'{metric}: `{logged.key}`' + (f' x {logged.scale:g}' if logged.scale != 1 else '')
        for metric, logged in LEDGER_METRICS.items()
    )
    return [
        '## Comparing a finished run with the ledger',
        '',
        '    python tools/reproductions.py --compare work_dirs/<config name> [<work dir> ...]',
        '',
        'For each work dir, the config that mmengine dumped there (`<work dir>/<config name>.py`) '
        'selects the ledger rows of the config with that file name, and is checked against their '
        'protocol fields. The measured value is read from the final metrics of the run: the newest '
        '`tools/test.py` result (`<work dir>/<timestamp>/<timestamp>.json`, a training run tested '
        'or a released head evaluated), else the validation at the end of training '
        '(`<timestamp>/vis_data/scalars.json`). The metric is the key that its evaluator logs '
        f'({units}). It prints published, measured and measured - published for each row; a run '
        "whose config is no row's, a run without final metrics (unfinished, or not tested), a "
        'metric that was not logged and a protocol field that differs are named, and the exit '
        'status is then 1. The dump of a `tools/test.py` run is the test config: how its '
        'checkpoint was trained is not compared here (`tools/test.py` itself refuses a checkpoint '
        'whose training config, saved in it, builds another model).',
        '',
        'To contribute a measured result, attach to an issue or pull request the files of the '
        'run: the config dump, the log (`<timestamp>/<timestamp>.log`), the scalars '
        '(`<timestamp>/vis_data/scalars.json`) or the `tools/test.py` result, and the output of '
        '`--compare` on that work dir. The measured value is the one `--compare` reads from those '
        'files: no measured value is typed by hand.',
        '',
    ]
