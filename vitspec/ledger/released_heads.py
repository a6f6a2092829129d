"""Released trained heads (configs/<dataset>/released_heads.yaml): ledger rows whose published
head can be evaluated without training. Each entry names its row, the released file's URL, the
key layout (vitspec.checkpoints.layouts.head_formats) and the source of the URL;
docs/reproduce.md gets the two commands per row (convert, test) and the number the test should
print."""

from pathlib import Path, PurePosixPath

import yaml

from vitspec.errors import LedgerError

FILE_NAME = 'released_heads.yaml'
KEYS = ('row', 'url', 'format', 'source')
WORK_DIR = 'work_dirs/released'


def read_released_heads(ledger_path, ledger: dict) -> list:
    """The entries of every dataset folder's file beside ``ledger_path``, in dataset order;
    LedgerError names an entry whose keys are wrong or whose row or source is unknown."""
    configs = Path(ledger_path).resolve().parent
    rows = {row['id'] for row in ledger['rows']}
    heads, problems = [], []
    for dataset in ledger['datasets']:
        file = configs / dataset / FILE_NAME
        if not file.is_file():
            continue
        for index, entry in enumerate((yaml.safe_load(file.read_text()) or {}).get('heads') or []):
            where = f'configs/{dataset}/{FILE_NAME}: heads[{index}]'
            if not isinstance(entry, dict) or sorted(entry) != sorted(KEYS):
                problems.append(f'{where}: needs exactly the keys {", ".join(KEYS)}')
                continue
            if entry['row'] not in rows:
                problems.append(f'{where}.row: no ledger row {entry["row"]!r}')
            if entry['source'] not in ledger['sources']:
                problems.append(f'{where}.source: unknown source {entry["source"]!r}')
            heads.append(entry)
    if problems:
        raise LedgerError('\n'.join(problems))
    return heads


def commands(entry: dict, row: dict) -> tuple:
    """(convert, test) for one released head, run in the checkout after the row's backbone
    conversion (the row's ``convert``)."""
    head_file = PurePosixPath(entry['url']).name
    converted = f'{WORK_DIR}/{entry["row"]}.pth'
    convert = (
        f'python tools/convert_checkpoint.py {head_file} {converted} --format {entry["format"]} '
        f'--head-config {row["config"]}'
    )
    return convert, f'tools/dist_test.sh {row["config"]} {converted} 8'
