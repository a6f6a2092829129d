"""Reads the reproduction ledger from its files, the way mmseg keeps a metafile per config folder:
``configs/reproductions.yaml`` lists the dataset folders and holds the sources every row cites;
``configs/<dataset>/reproductions.yaml`` holds that folder's rows and the protocols they follow.
Each file is checked against the schema; ids are unique across files, references by id resolve
across files, and a row lives in the file of its config's folder."""

from pathlib import Path

import yaml

from vitspec.errors import LedgerError
from vitspec.ledger.schema import check_file

FILE_NAME = 'reproductions.yaml'
TABLES = {'sources': 'source', 'protocols': 'protocol'}


def read_ledger(path, schema_path) -> dict:
    """The merged ledger (``sources``, ``protocols``, ``rows``, ``datasets``) of the shared file
    ``path`` and the dataset files it lists; LedgerError names every problem's file and key."""
    path = Path(path).resolve()
    configs, root = path.parent, path.parent.parent
    schema = yaml.safe_load(Path(schema_path).read_text())
    shared, references = _checked(path, 'shared', schema, root)
    ledger = dict(
        datasets=shared['datasets'],
        sources=shared['sources'],
        protocols={},
        rows=[],
        not_reproduced=shared.get('not_reproduced') or [],
    )
    owners = {'protocols': {}, 'rows': {}}
    label = _label(path, root)
    problems = _add_protocols(ledger, owners, shared, label)
    for index, dataset in enumerate(shared['datasets']):
        file = configs / dataset / FILE_NAME
        if not file.is_file():
            problems.append(f'{label}: datasets[{index}]: no file {_label(file, root)}')
            continue
        data, refs = _checked(file, 'dataset', schema, root)
        references += refs
        problems += _add_protocols(ledger, owners, data, _label(file, root))
        problems += _add_rows(ledger, owners, data, _label(file, root), f'{configs.name}/{dataset}')
    for file in sorted(configs.glob(f'*/{FILE_NAME}')):
        if file.parent.name not in ledger['datasets']:
            problems.append(f'{_label(file, root)}: its folder is not in the datasets of {label}')
    problems += [_unresolved(ledger, root, *ref) for ref in references]
    problems = [p for p in problems if p]
    if problems:
        raise LedgerError('\n'.join(problems))
    return ledger


def _label(file, root: Path) -> str:
    file = Path(file).resolve()
    return file.relative_to(root).as_posix() if file.is_relative_to(root) else str(file)


def _checked(file: Path, kind: str, schema: dict, root: Path) -> tuple:
    """The file's data and its references (label, path, table, value), or LedgerError."""
    label = _label(file, root)
    try:
        data = yaml.safe_load(file.read_text())
    except yaml.YAMLError as exc:
        raise LedgerError(f'{label}: not YAML: {exc}') from None
    problems, references = check_file(data, schema, kind)
    if problems:
        raise LedgerError('\n'.join(f'{label}: {p}' for p in problems))
    return data, [(label, *ref) for ref in references]


def _add_protocols(ledger: dict, owners: dict, data: dict, label: str) -> list:
    problems = []
    for pid, protocol in (data.get('protocols') or {}).items():
        if pid in owners['protocols']:
            problems.append(f'{label}: protocols.{pid}: also defined in {owners["protocols"][pid]}')
        owners['protocols'][pid] = label
        ledger['protocols'][pid] = protocol
    return problems


def _add_rows(ledger: dict, owners: dict, data: dict, label: str, folder: str) -> list:
    problems = []
    for index, row in enumerate(data['rows']):
        where = f'{label}: rows[{index}]'
        if row['id'] in owners['rows']:
            problems.append(
                f'{where}.id: {row["id"]!r} is also a row of {owners["rows"][row["id"]]}'
            )
        if Path(row['config']).parent.as_posix() != folder:
            problems.append(
                f"{where}.config: {row['config']} is not in {folder}/, this file's folder"
            )
        owners['rows'][row['id']] = label
        ledger['rows'].append(row)
    return problems


def _unresolved(ledger: dict, root: Path, label: str, path: str, table: str, value) -> str:
    if table == 'config':
        return '' if (root / value).is_file() else f'{label}: {path}: no config {value} in {root}'
    if value in ledger[table]:
        return ''
    return f'{label}: {path}: unknown {TABLES[table]} {value!r} (ids of {table} in any ledger file)'
