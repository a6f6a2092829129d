"""The reproduction ledger (configs/reproductions.yaml and configs/<dataset>/reproductions.yaml,
read by ledger_files.py): published results, the configs that reproduce them, and the published
protocol values each config must hold; the checks and the generated docs/reproduce.md and
README.md table (tools/reproductions.py)."""

import math
import re
from collections import defaultdict
from pathlib import Path

import yaml
from mmengine.config import Config

from vitspec.config_dir import config_dir
from vitspec.engine.finite_loss_amp import AMP_WRAPPERS

from .compare_doc import compare_section
from .ledger_files import read_ledger
from .ledger_schema import LedgerError
from .released_heads import read_released_heads, released_heads_section

ROOT = Path(__file__).resolve().parents[2]  # this package's checkout: configs/, docs/, README.md
LEDGER_PATH = Path('configs') / 'reproductions.yaml'  # in a checkout
DOC_PATH = Path('docs') / 'reproduce.md'
LEDGER = config_dir() / LEDGER_PATH.name  # the shared file; each dataset folder has its own
SCHEMA = config_dir() / 'reproductions.schema.yaml'  # the schema this code reads, every ledger
DOC = ROOT / DOC_PATH
NOT_FOUND = 'not found'
NOT_APPLICABLE = 'not applicable'  # a protocol field the row's model lacks: checked absent
TOKEN = re.compile(r'([^.\[\]]+)|\[([^\]]+)\]')
PRECISIONS = {'float32': 'fp32', 'float16': 'fp16', 'bfloat16': 'bf16'}


def checkout_of(ledger_path) -> Path:
    """The checkout a ledger belongs to (configs/reproductions.yaml in it): the configs its
    rows name are read there, whichever checkout vitspec itself is imported from."""
    return Path(ledger_path).resolve().parents[1]


def load_ledger(path=LEDGER, schema=SCHEMA) -> dict:
    """The ledger of ``path`` (configs/reproductions.yaml) and the dataset files it lists, each
    checked against ``schema``: every row names an existing config of its file's folder, a known
    protocol and known sources; every field has a value (or 'not found') and a source."""
    ledger = read_ledger(path, schema)
    ledger['released_heads'] = read_released_heads(path, ledger)
    return ledger


def row_fields(ledger: dict, row: dict) -> dict:
    """The row's protocol fields, updated by its own."""
    protocol = ledger['protocols'].get(row.get('protocol'), {}) if row.get('protocol') else {}
    return {**(protocol.get('fields') or {}), **(row.get('fields') or {})}


def field_value(cfg, path: str):
    """``cfg`` at a dotted path: ``a.b[2].c``, ``pipeline[type=RandomResize].scale``."""
    node = cfg
    for name, index in TOKEN.findall(path):
        if name:
            try:  # a Config, a ConfigDict or a dict
                node = node[name]
            except (KeyError, TypeError, IndexError):
                raise KeyError(f'{path}: no key {name!r}') from None
        elif '=' in index:
            key, want = index.split('=', 1)
            found = [x for x in node if isinstance(x, dict) and str(x.get(key)) == want]
            if not found:
                raise KeyError(f'{path}: no element with {key}={want}')
            node = found[0]
        else:
            node = node[int(index)]
    return node


def plain(value):
    """Config values as YAML would write them: tuples as lists, ConfigDicts as dicts."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def same(a, b) -> bool:
    a, b = plain(a), plain(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def expected(spec: dict):
    """The value the built config must hold: the published one, or ours for a deviation."""
    return spec['ours'] if 'ours' in spec else spec['value']


def config_precision(cfg) -> str:
    """Where the built config's backbone computes: 'fp32', 'fp16' or 'bf16' (its ViTAdapter's
    ``vit_autocast``, else its optimizer wrapper's autocast dtype, float16 unless named)."""
    backbone = cfg.model.get('backbone') or {}
    if backbone.get('vit_autocast'):
        return PRECISIONS[backbone['vit_autocast']]
    wrapper = cfg.get('optim_wrapper') or {}
    if wrapper.get('type') in AMP_WRAPPERS:
        return PRECISIONS[str(wrapper.get('dtype') or 'float16').replace('torch.', '')]
    return PRECISIONS['float32']


def check_row(ledger: dict, row: dict, cfg=None, root: Path = None) -> list:
    """Mismatches between the built config (``root / row['config']``) and the row's fields,
    one line each; ``root`` defaults to the folder holding config_dir() (installed or checkout)."""
    if cfg is None:
        cfg = Config.fromfile(Path(root or config_dir().parent) / row['config'])
    problems = []
    for name, spec in row_fields(ledger, row).items():
        want = expected(spec)
        if want == NOT_FOUND:
            continue
        try:
            got = field_value(cfg, name)
        except (KeyError, IndexError, TypeError) as exc:
            if want != NOT_APPLICABLE:
                problems.append(f'{row["id"]}: {name}: missing in {row["config"]} ({exc})')
            continue
        if want == NOT_APPLICABLE:
            problems.append(
                f'{row["id"]}: {name} = {plain(got)!r} in {row["config"]}, '
                f'ledger says not applicable ({spec.get("source")})'
            )
            continue
        if not same(got, want):
            problems.append(
                f'{row["id"]}: {name} = {plain(got)!r} in {row["config"]}, '
                f'ledger says {want!r} ({spec.get("source")})'
            )
    spec = row.get('precision')
    if spec and expected(spec) != NOT_FOUND and config_precision(cfg) != expected(spec):
        problems.append(
            f'{row["id"]}: precision = {config_precision(cfg)!r} in {row["config"]}, '
            f'ledger says {expected(spec)!r} ({spec.get("source")})'
        )
    return problems


def _fmt(value) -> str:
    text = yaml.safe_dump(plain(value), default_flow_style=True, width=1000).strip()
    text = text[:-4].strip() if text.endswith('...') else text
    return f'`{text}`'.replace('|', '\\|')


def not_reproduced_section(ledger: dict) -> list:
    """The papers whose published results no config here reproduces, and why."""
    entries = ledger.get('not_reproduced') or []
    if not entries:
        return []
    out = [
        '## Published results not reproduced here',
        '',
        '| paper | publishes | why not here | instead | source |',
        '|---|---|---|---|---|',
    ]
    for entry in entries:
        source = ledger['sources'][entry['source']]
        out.append(
            f'| {entry["paper"]} | {entry["publishes"]} | {entry["reason"]} | '
            f'{entry.get("instead", "")} | {source} |'
        )
    return out + ['']


def render_doc(ledger: dict) -> str:
    rows = ledger.get('rows') or []
    by_dataset = defaultdict(list)
    for row in rows:
        by_dataset[Path(row['config']).parent.name].append(row)
    out = [
        '# Reproducing published results',
        '',
        '<!-- generated by tools/reproductions.py from configs/reproductions.yaml and '
        'configs/*/reproductions.yaml; do not edit -->',
        '',
        'Each row is a published result, the config that reproduces it and the released '
        'checkpoint it starts from. Convert the checkpoint once, then train and test:',
        '',
        '    python tools/convert_checkpoint.py <released file> pretrain/<name>.pth '
        '--format <format>',
        '    tools/dist_train.sh <config> 8',
        '    tools/dist_test.sh  <config> work_dirs/<config name>/<checkpoint> 8',
        '',
        'The protocol of each config is listed field by field below, with the published '
        'value and where it was read; the test suite checks every field against the built '
        'config. "not found" marks a value that no published source gave; "not applicable" a '
        "protocol field that the row's model does not have (checked absent); a deviation gives "
        'our value and the reason.',
        '',
    ]
    for dataset, dataset_rows in by_dataset.items():
        out += [
            f'## {dataset}',
            '',
            '| result | published | source | config | checkpoint and conversion |',
            '|---|---|---|---|---|',
        ]
        for row in dataset_rows:
            value = published(row)
            source = ledger['sources'].get(row.get('value_source'), NOT_FOUND)
            ckpt = row['checkpoint']
            ckpt = ckpt.get('file', NOT_FOUND) if isinstance(ckpt, dict) else ckpt
            cfg = f'[{Path(row["config"]).name}](../{row["config"]})'
            note = f' ({row["note"]})' if row.get('note') else ''
            out.append(
                f'| {row["paper"]}, {row["table"]}: {row["row"]}{note} | {value} | '
                f'{source} | {cfg} | `{ckpt}`: `{row["convert"]}` |'
            )
        out.append('')
    out += not_reproduced_section(ledger)
    out += released_heads_section(ledger)
    out += compare_section()
    out += ['## Protocols', '']
    for pid, protocol in ledger['protocols'].items():
        users = [r['id'] for r in rows if r.get('protocol') == pid]
        out += [
            f'### {pid}: {protocol.get("title", "")}',
            '',
            f'Rows: {", ".join(users) or "none"}.',
            '',
            '| field | published | source | ours |',
            '|---|---|---|---|',
        ]
        for name, spec in (protocol.get('fields') or {}).items():
            out.append(_field_line(name, spec))
        out.append('')
    specific = [r for r in rows if r.get('fields') or r.get('precision')]
    if specific:
        out += [
            '### Row-specific fields',
            '',
            '| row | field | published | source | ours |',
            '|---|---|---|---|---|',
        ]
        for row in specific:
            own = {
                **(row.get('fields') or {}),
                **({'precision': row['precision']} if row.get('precision') else {}),
            }
            for name, spec in own.items():
                out.append(f'| {row["id"]} ' + _field_line(name, spec))
        out.append('')
    out += ['## Sources', '', '| name | where it was read |', '|---|---|']
    out += [f'| {name} | {text} |' for name, text in ledger['sources'].items()]
    return '\n'.join(out) + '\n'


README_START = '<!-- reproductions: generated by tools/reproductions.py -->'
README_END = '<!-- reproductions: end -->'


def render_readme_table(ledger: dict) -> str:
    """README's summary: per paper, table and dataset, each published value linked to its
    config."""
    groups = defaultdict(list)
    for row in ledger.get('rows') or []:
        groups[(row['paper'], row['table'], Path(row['config']).parent.name)].append(row)
    out = [
        README_START,
        '| source | dataset | published result and the config that reproduces it |',
        '|---|---|---|',
    ]
    for (paper, table, dataset), rows in groups.items():
        cells = [f'[{r["row"]}]({r["config"]}): {published(r)}' for r in rows]
        out.append(f'| {paper}, {table} | {dataset} | {"; ".join(cells)} |')
    return '\n'.join(out + [README_END])


def published(row: dict) -> str:
    """A row's published value with its metric, or 'not found'."""
    return row['value'] if row['value'] == NOT_FOUND else f'{row["metric"]} {row["value"]}'


def readme_with_table(readme: str, ledger: dict) -> str:
    start, end = readme.find(README_START), readme.find(README_END)
    if start < 0 or end < 0:
        raise LedgerError(f'README.md has no {README_START} ... {README_END} block')
    return readme[:start] + render_readme_table(ledger) + readme[end + len(README_END) :]


def _field_line(name: str, spec: dict) -> str:
    ours = 'same' if 'ours' not in spec else f'{_fmt(spec["ours"])}: {spec["deviation"]}'
    value = spec['value'] if spec['value'] in (NOT_FOUND, NOT_APPLICABLE) else _fmt(spec['value'])
    return f'| `{name}` | {value} | {spec.get("source") or "-"} | {ours} |'
