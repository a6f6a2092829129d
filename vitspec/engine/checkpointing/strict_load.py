"""A Runner's checkpoint into its model, strictly: ``load_from`` and resuming (and so
tools/test.py, which names its checkpoint as ``load_from``) refuse a checkpoint that does not
fit the model, naming the file and the keys.

mmengine's ``Runner.load_checkpoint`` loads with ``strict=False``: a checkpoint of another size
leaves the mismatched weights at their random init and only prints the keys, and a resume then
fails later on the optimizer's parameter groups without naming the file. Here the file is read
as mmengine reads it (its ``CheckpointLoader``, through vitspec's safe loader), and the weights
go in through ``load_state_dict_strict`` (checkpoints/load.py), the loader of every model.
"""

import os.path as osp
import re
from collections import OrderedDict

from mmengine.model import BaseTTAModel, is_model_wrapper
from mmengine.runner import CheckpointLoader

from vitspec.checkpoints.load import load_state_dict_strict
from vitspec.checkpoints.mismatch import FEW
from vitspec.errors import CheckpointError
from vitspec.fileio import using_safe_io

from .runner_fields import is_resuming, record_loaded

MODULE_PREFIX = [(r'^module\.', '')]  # mmengine's default revise_keys: DDP's wrapper prefix


def load_checkpoint_strict(runner, filename, map_location='cpu', revise_keys=MODULE_PREFIX):
    """``Runner.load_checkpoint(filename, strict=True)``, raising CheckpointError with the file,
    the counts of missing / unexpected / mis-shaped keys and a few of them by name."""
    if osp.isdir(filename):
        raise CheckpointError(folder_message(filename, resuming=is_resuming(runner)))
    with using_safe_io():  # whether or not the config's SafeIOHook has installed it yet
        checkpoint = CheckpointLoader.load_checkpoint(filename, map_location=map_location)
    if not isinstance(checkpoint, dict):
        raise CheckpointError(f'{filename} holds no checkpoint dict')
    runner.call_hook('after_load_checkpoint', checkpoint=checkpoint)
    model = runner.model.module if is_model_wrapper(runner.model) else runner.model
    if isinstance(model, BaseTTAModel):  # tools/test.py --tta: the weights are its module's
        model = model.module
    state_dict = checkpoint.get('state_dict', checkpoint)
    metadata = getattr(state_dict, '_metadata', OrderedDict())  # module versions, for BatchNorm
    for pattern, replacement in revise_keys:
        revised = ((re.sub(pattern, replacement, k), v) for k, v in state_dict.items())
        state_dict = OrderedDict(revised)
    state_dict._metadata = metadata
    target = f'the model of this config ({type(model).__name__})'
    load_state_dict_strict(model, state_dict, str(filename), few=FEW, target=target)
    record_loaded(runner)
    runner.logger.info(f'Load checkpoint from {filename} (strict)')
    return checkpoint


def folder_message(path: str, resuming: bool) -> str:
    """What to say for a folder where a checkpoint file was expected; a folder given to
    ``--resume`` is taken for a work dir."""
    message = f'{path} is a folder, not a checkpoint file'
    if resuming:
        return (
            f'{message}. To resume from the latest checkpoint of a work dir, give --resume '
            f'without a path (tools/train.py CONFIG --resume --work-dir {path}), or '
            f'resume=True and no load_from in the config'
        )
    return f'{message}: name one of its .pth files'


def partial_load_requested(runner, filename: str) -> bool:
    """``load_from_strict = False`` in the config, for a deliberate partial ``load_from`` (a
    deeper model, another head); logged as a warning. A resume stays strict."""
    partial = not is_resuming(runner) and runner.cfg.get('load_from_strict', True) is False
    if partial:
        runner.logger.warning(
            f'load_from_strict=False: loading {filename} partially; the weights it lacks or '
            'holds in another shape keep their initialisation (listed below)'
        )
    return partial
