"""``--cfg-options`` on a variable of the config file (``data_root``, ``max_iters``,
``train_pipeline``): mmengine runs the file once, so each variable is copied into the dicts that
use it, and a later change of the variable reaches none of them.

``data_root`` is carried to every key of the dataloaders and evaluators that holds its value
(and to paths under it); an override of any other such variable is refused, naming the keys
whose value the files computed from it (read from their text: ``variable_uses``), each with its
expression where it is not the variable itself, which are the ones to set.

The same holds for the one key a variable flows into under its own name
(``train_cfg.max_iters``, set from ``max_iters``; not ``crop_size``, which the train and the test
crops both hold): setting it sets the variable for the run, and every other key computed from the
variable (the scheduler's end and milestones, EoMT's mask annealing steps) would keep the old
value. Those keys are recomputed from the new value by the expressions the config wrote for them
(``int(max_iters * 0.8)``) where these need nothing but the variable; a key the same
``--cfg-options`` sets keeps the value given; any other is named in a refusal.
"""

import ast

from mmengine.config import Config
from mmengine.logging import print_log

from vitspec.config.tree import ABSENT, flatten, get, plain
from vitspec.config.typos import TOP_LEVEL_FIELDS
from vitspec.config.variable_uses import BASE, variable_uses
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
            if head in READ_AFTER_LOADING:
                out.update(_follow_a_source_key(cfg, key, value, options))
            continue
        old = plain(cfg[head])
        if key != CARRIED:
            keys = _unset(_keys_to_set(cfg, head, key[len(head) :], old), options)
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


def _follow_a_source_key(cfg: Config, key: str, value, options: dict) -> dict:
    """When ``key`` is the one key that holds, whole, the variable of its own last name
    (``train_cfg.max_iters = max_iters``): the other keys computed from that variable,
    recomputed from ``value``, those that ``options`` sets left out. ConfigError naming the keys
    whose expression needs more than the variable."""
    name = key.rsplit('.', 1)[-1]
    if name == key or name == CARRIED or name not in cfg or not getattr(cfg, 'filename', None):
        return {}
    uses = variable_uses(cfg.filename, name, cfg)
    homes = [
        u.key
        for u in uses
        if u.key.rsplit('.', 1)[-1] == name and u.expression in (name, f'{BASE}.{name}')
    ]
    if homes != [key]:  # not its home, or one of several (crop_size: train and test crops)
        return {}
    recomputed, refused = {}, []
    for use in uses:
        if use.key.split('.')[0] not in READ_AFTER_LOADING or get(cfg, use.key, ABSENT) is ABSENT:
            continue
        if _unset([(use.key, use.key)], {**options, key: None}):
            new = recompute(use, name, value)
            if new is ABSENT:
                where = f', where {"; ".join(use.via)}' if use.via else ''
                refused.append(f'{use.key} (= {use.expression}{where})')
            else:
                recomputed[use.key] = new
    if refused:
        raise ConfigError(
            f'--cfg-options {key}: the config set {key} from its variable {name!r} and computed '
            f'other keys from that variable when the file was read, with more than {name} alone; '
            f'they would keep the value of the old {name}. Set them too, in the same '
            '--cfg-options: ' + ', '.join(refused)
        )
    kept = [k for k in recomputed if not _runnable(cfg, k, recomputed)]
    for k in kept:
        del recomputed[k]
    if kept:
        print_log(
            f'--cfg-options {key}={value}: left as written, since recomputed they could not run '
            f'and belong to a part that starts after the run ends: {", ".join(kept)}',
            logger='current',
        )
    if recomputed:
        print_log(
            f'--cfg-options {key}={value}: recomputed from it as the config computes them: '
            + ', '.join(f'{k}={v!r}' for k, v in recomputed.items()),
            logger='current',
        )
    return recomputed


def _runnable(cfg: Config, key: str, recomputed: dict) -> bool:
    """False for a recomputed value that mmengine would refuse although the part it belongs to
    never acts in the shorter run: a scheduler's ``end`` at or before its ``begin`` (it begins
    after the run ends), an interval below 1."""
    value = recomputed[key]
    if key.endswith('.end') and isinstance(value, (int, float)):
        begin_key = key[: -len('end')] + 'begin'
        begin = recomputed.get(begin_key, get(cfg, begin_key, 0))
        return not isinstance(begin, (int, float)) or value > begin
    if key.rsplit('.', 1)[-1].endswith('interval') and isinstance(value, (int, float)):
        return value >= 1
    return True


# what a derived key's expression may call besides the variable and the config's own names
PURE_BUILTINS = dict(int=int, float=float, round=round, min=min, max=max, abs=abs)


def recompute(use, name: str, value):
    """The value of ``use`` (a key computed from the variable ``name``) for the variable's new
    ``value``, by the expressions the config wrote: its ``via`` definitions in turn, then its
    own; ABSENT when they read any other name."""
    scope = {name: value, BASE: _Base({name: value})}
    steps = [via.split(' = ', 1) for via in use.via] + [('', use.expression)]
    for target, expression in steps:
        try:
            tree = ast.parse(expression, mode='eval')
        except SyntaxError:
            return ABSENT
        if not _reads_only(tree, {*scope, *PURE_BUILTINS}, scope[BASE].names):
            return ABSENT
        try:
            result = eval(compile(tree, '<config>', 'eval'), {'__builtins__': PURE_BUILTINS}, scope)
        except Exception:
            return ABSENT
        if target:
            scope[target] = result
            scope[BASE].names[target] = result
    return result


def _reads_only(tree, names, base_names) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            if not (isinstance(node.value, ast.Name) and node.value.id == BASE):
                return False
            if node.attr not in base_names:
                return False
        elif isinstance(node, ast.Name) and node.id not in names:
            return False
        elif isinstance(node, (ast.Lambda, ast.ListComp, ast.GeneratorExp, ast.DictComp)):
            return False
    return True


class _Base:
    """``_base_.x`` inside a recomputed expression: the variable and those computed from it."""

    def __init__(self, names: dict):
        self.names = names

    def __getattr__(self, attr):
        try:
            return self.__dict__['names'][attr]
        except KeyError:
            raise AttributeError(attr) from None


def _keys_to_set(cfg: Config, head: str, rest: str, old, uses=None) -> list:
    """(key, how it is named) for the keys read after loading that the files computed from the
    variable ``head``: with ``rest`` (a key below the variable) where the variable was used
    whole, else with its expression; without the files' text, the keys that hold its value.
    ``uses``: the variable's uses when already read."""
    filename = getattr(cfg, 'filename', None)
    if not filename:
        if old is None or isinstance(old, bool) or old in ('', [], {}):
            return []
        return [
            (path + rest, path + rest)
            for top in cfg
            if top in READ_AFTER_LOADING
            for path in _paths_holding(cfg[top], old, top)
        ]
    keys = []
    for use in variable_uses(filename, head, cfg) if uses is None else uses:
        if use.key.split('.')[0] not in READ_AFTER_LOADING or get(cfg, use.key, ABSENT) is ABSENT:
            continue
        if use.expression == head and not use.via:
            keys.append((use.key + rest, use.key + rest))
        else:
            where = f', where {"; ".join(use.via)}' if use.via else ''
            keys.append((use.key, f'{use.key} (= {use.expression}{where})'))
    return keys


def _unset(keys: list, options: dict) -> list:
    """The names of ``keys`` that neither ``options`` nor a dict it replaces whole sets."""
    return [
        named
        for key, named in keys
        if not any(key == k or key.startswith(k + '.') for k in options)
    ]


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
