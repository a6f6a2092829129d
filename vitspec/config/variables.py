"""``--cfg-options`` on a variable of the config file (``data_root``, ``max_iters``,
``train_pipeline``): mmengine runs the file once, so each variable is copied into the dicts that
use it, and a later change of the variable reaches none of them.

``data_root`` is carried to every key of the dataloaders and evaluators that holds its value
(and to paths under it); an override of any other such variable is refused, naming the keys
whose value the files computed from it (read from their text: ``variable_uses``), each with its
expression where it is not the variable itself, which are the ones to set.
"""

from mmengine.config import Config
from mmengine.logging import print_log

from vitspec.config.tree import ABSENT, flatten, get, plain
from vitspec.config.typos import TOP_LEVEL_FIELDS
from vitspec.config.variable_uses import variable_uses
from vitspec.errors import ConfigError

# Top-level keys that mmengine's Runner or vitspec's tools read after the file was run: setting
# them works. vis_backends is a file variable, read only while the file runs.
READ_AFTER_LOADING = TOP_LEVEL_FIELDS - {'vis_backends'}
CARRIED = 'data_root'
CARRIED_INTO = ('_dataloader', '_evaluator')  # the top-level keys data_root is carried into


def reach_targets(cfg: Config, options: dict) -> dict:
    """``options`` plus, for ``data_root``, the keys it is carried to. ConfigError for an
    override of any other variable of the file whose value the config holds elsewhere."""
    out = dict(options)
    for key, value in options.items():
        head = key.split('.')[0]
        if head in READ_AFTER_LOADING or head not in cfg:
            if key == CARRIED and head not in cfg:
                raise ConfigError(_no_data_root(cfg))
            continue
        old = plain(cfg[head])
        if key != CARRIED:
            keys = _keys_to_set(cfg, head, key[len(head) :], old)
            if keys:
                raise ConfigError(
                    f'--cfg-options {key}: {head!r} is a variable of the config file, copied '
                    f'into the keys that use it when the file was read, so changing it now '
                    f'changes nothing. Set the keys that use it instead: ' + ', '.join(keys)
                )
            continue  # used nowhere in the config: perhaps read by a script of the user's
        if old is None or isinstance(old, bool) or old in ('', [], {}):
            continue  # no value to recognise its copies by
        out.update(_carry(cfg, old, value, options))
    return out


def _keys_to_set(cfg: Config, head: str, rest: str, old) -> list:
    """The keys read after loading that the files computed from the variable ``head``, each
    with ``rest`` (a key below the variable) where the variable was used whole, else with its
    expression; without the files' text, the keys that hold its value."""
    filename = getattr(cfg, 'filename', None)
    if not filename:
        if old is None or isinstance(old, bool) or old in ('', [], {}):
            return []
        return [
            path + rest
            for top in cfg
            if top in READ_AFTER_LOADING
            for path in _paths_holding(cfg[top], old, top)
        ]
    keys = []
    for use in variable_uses(filename, head, cfg):
        if use.key.split('.')[0] not in READ_AFTER_LOADING or get(cfg, use.key, ABSENT) is ABSENT:
            continue
        if use.expression == head and not use.via:
            keys.append(use.key + rest)
        else:
            where = f', where {"; ".join(use.via)}' if use.via else ''
            keys.append(f'{use.key} (= {use.expression}{where})')
    return keys


def _carry(cfg: Config, old: str, new, options: dict) -> dict:
    """data_root's new value for every key of the dataloaders and evaluators that holds the old
    one or a path under it; keys set by ``options`` themselves are left to them."""
    carried = {}
    for top in cfg:
        if not top.endswith(CARRIED_INTO):
            continue
        for path, value in flatten(cfg[top], f'{top}.').items():
            if any(path == k or path.startswith(k + '.') for k in options):
                continue
            if value == old:
                carried[path] = new
            elif _is_under(value, old) and isinstance(new, str):
                carried[path] = new.rstrip('/') + '/' + value[len(old) :].lstrip('/')
    print_log(
        f'--cfg-options data_root={new} carried to: {", ".join(carried) or "no key"}',
        logger='current',
    )
    return carried


def _is_under(value, root: str) -> bool:
    if not isinstance(value, str) or not isinstance(root, str) or not value.startswith(root):
        return False
    return root.endswith('/') or value[len(root) :].startswith('/')


def _no_data_root(cfg: Config) -> str:
    keys = [
        path for top in cfg for path in flatten(cfg[top], f'{top}.') if path.endswith('.data_root')
    ]
    return (
        '--cfg-options data_root: this config has no variable data_root, so it would reach no '
        "dataset. Set the datasets' own keys: " + (', '.join(keys) or 'none found')
    )


def _paths_holding(node, value, path):
    """Dotted paths from ``path`` down (list items by index, as merge_from_dict takes them)
    whose value equals ``value``; a match is not searched further."""
    if plain(node) == value:
        yield path
    elif isinstance(node, dict):
        for key, sub in node.items():
            yield from _paths_holding(sub, value, f'{path}.{key}')
    elif isinstance(node, (list, tuple)):
        for i, sub in enumerate(node):
            yield from _paths_holding(sub, value, f'{path}.{i}')
