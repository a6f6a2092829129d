"""The config a checkpoint was trained with against the one it is tested with, compared before
any weight is read (checkpoints/trained.py; tools/test.py's test of a checkpoint).

mmengine saves the training config in every checkpoint (``meta['cfg']``). A test config that
builds another model from the same parameters (Token Graying on a plainly trained checkpoint:
no weight differs, so the strict load passes) prints a wrong metric; such a difference stops
the test, naming the keys. Differences of the test data and of test-time settings are logged.
"""

import logging

from mmengine.config import Config
from mmengine.logging import print_log

from vitspec.config.tree import differing, flatten, plain
from vitspec.errors import SavedConfigMismatch

# Model keys that only training reads: a difference there does not change the tested model.
TRAINING_ONLY = frozenset(
    {
        'init_cfg',
        'pretrained',
        'train_cfg',
        'frozen_stages',
        'drop_path_rate',
        'dropout_ratio',
        'with_cp',
        'sampler',
        'norm_eval',
        'batch_augments',
    }
)
TEST_TIME = ('model.test_cfg',)  # a test-time choice: logged, not refused
# Where the test data comes from may change; what the dataset gives the model may not silently.
DATA_LOCATION = frozenset({'data_root', 'data_prefix', 'ann_file', 'backend_args', 'indices'})
ABSENT = '<absent>'
FEW = 8


def saved_config(checkpoint: dict):
    """The training config stored in a checkpoint, or None (converted and foreign files)."""
    text = (checkpoint.get('meta') or {}).get('cfg') if isinstance(checkpoint, dict) else None
    if not isinstance(text, str):
        return None
    try:
        return Config.fromstring(text, file_format='.py')
    except Exception as exc:  # a config text of another mmengine version: say so, go on
        print_log(f'cannot read the meta.cfg of the checkpoint ({exc!r})', logger='current')
        return None


def differences(saved: dict, tested: dict, prefix: str) -> list:
    """``(key, saved value, tested value)`` for each dotted key under ``prefix`` that differs."""
    fa = flatten(plain(saved), f'{prefix}.') if saved is not None else {}
    fb = flatten(plain(tested), f'{prefix}.') if tested is not None else {}
    return differing(fa, fb, absent=ABSENT)


def changes_model(key: str) -> bool:
    parts = key.split('.')
    if key.startswith(TEST_TIME) or any(p in TRAINING_ONLY for p in parts):
        return False
    return not any(p.startswith('loss') for p in parts)  # losses: training only


def check_saved_config(checkpoint: dict, cfg: Config, filename: str) -> None:
    """SavedConfigMismatch naming the model keys in which ``cfg`` differs from the config
    ``checkpoint`` was trained with; a WARNING for differences of the test data and
    test-time settings."""
    saved = saved_config(checkpoint)
    if saved is None:
        print_log(
            f'{filename} holds no training config (meta.cfg): the test config is not compared '
            f'with it',
            logger='current',
        )
        return
    model = differences(saved.get('model'), cfg.get('model'), 'model')
    data = differences(
        _dataset(saved.get('test_dataloader')), _dataset(cfg.get('test_dataloader')), 'dataset'
    )
    refused = [d for d in model if changes_model(d[0])]
    noted = [d for d in model if d[0].startswith(TEST_TIME)]
    noted += [d for d in data if not DATA_LOCATION & set(d[0].split('.'))]
    if noted:
        print_log(
            f'the test config differs from the one {filename} was trained with in test-time '
            f'settings or test data: {_listing(noted)}',
            logger='current',
            level=logging.WARNING,
        )
    if refused:
        raise SavedConfigMismatch(
            f'the test config builds another model than {filename} was trained as (its '
            f'meta.cfg): {_listing(refused)}. Test with the training config, or pass '
            f'--no-config-check to test this model anyway.'
        )


def other_model(checkpoint: dict, cfg: Config) -> str:
    """'' when ``checkpoint`` was trained as the model ``cfg`` builds (or holds no config),
    else the model keys that differ, listed."""
    saved = saved_config(checkpoint)
    if saved is None:
        return ''
    model = differences(saved.get('model'), cfg.get('model'), 'model')
    return _listing([d for d in model if changes_model(d[0])])


def _dataset(loader):
    return (loader or {}).get('dataset') if isinstance(loader, dict) else None


def _listing(diffs: list) -> str:
    shown = [f'{k}: trained {a!r}, tested {b!r}' for k, a, b in diffs[:FEW]]
    more = f'; ... and {len(diffs) - FEW} more' if len(diffs) > FEW else ''
    return '; '.join(shown) + more
