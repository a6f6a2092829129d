"""The reproduction ledger (configs/reproductions.yaml and configs/<dataset>/reproductions.yaml,
read by files.py): published results, the configs that reproduce them, the published protocol
values each config must hold, and each row's fields checked against its built config.
tools/reproductions.py writes docs/reproduce.md from it."""

import math
from pathlib import Path

from mmengine.config import Config

from vitspec.config.location import config_dir
from vitspec.config.tree import get, plain
from vitspec.engine.optim.finite_loss_amp import AMP_WRAPPERS
from vitspec.ledger.files import read_ledger
from vitspec.ledger.released_heads import read_released_heads

LEDGER = config_dir() / 'reproductions.yaml'  # the shared file; each dataset folder has its own
SCHEMA = config_dir() / 'reproductions.schema.yaml'  # the schema this code reads, every ledger
NOT_FOUND = 'not found'
NOT_APPLICABLE = 'not applicable'  # a protocol field the row's model lacks: checked absent
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
            got = get(cfg, name)
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


def published(row: dict) -> str:
    """A row's published value with its metric, or 'not found'."""
    return row['value'] if row['value'] == NOT_FOUND else f'{row["metric"]} {row["value"]}'
