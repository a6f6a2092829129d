"""Loading a checkpoint into a Runner's model strictly: ``load_from``, ``--resume`` and
tools/test.py refuse a checkpoint that does not fit the model, naming the file and the keys.

mmengine's ``Runner.load_checkpoint`` loads with ``strict=False``: a checkpoint of another size
leaves the mismatched weights at their random init and only prints the keys, and a resume then
fails later on the optimizer's parameter groups without naming the file.
"""

import copy
import os.path as osp
import re
from collections import OrderedDict

from mmengine.model import BaseTTAModel, is_model_wrapper
from mmengine.registry import RUNNERS
from mmengine.runner import CheckpointLoader, Runner, load_state_dict

from vitspec.checkpoints.mismatch import FEW, describe_mismatch, find_mismatch
from vitspec.errors import CheckpointError

from .config_typos import check_config_keys
from .iteration_seed import IterationSeedHook
from .resume_checkpoint import checkpoint_to_resume

MODULE_PREFIX = [(r'^module\.', '')]  # mmengine's default revise_keys: DDP's wrapper prefix
MAY_MISS = ('num_batches_tracked',)  # as mmengine's loader: older BatchNorm checkpoints lack it


def load_checkpoint_strict(runner, filename, map_location='cpu', revise_keys=MODULE_PREFIX):
    """``Runner.load_checkpoint(filename, strict=True)``, raising CheckpointError with the file,
    the counts of missing / unexpected / mis-shaped keys and a few of them by name."""
    if osp.isdir(filename):
        raise CheckpointError(folder_message(filename, resuming=runner._resume))
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
    mismatch = find_mismatch(model.state_dict(), state_dict, MAY_MISS)
    if mismatch:
        raise CheckpointError(
            '\n'.join(
                [
                    f'{filename} does not fit the model of this config ({type(model).__name__}):',
                    *describe_mismatch(mismatch, few=FEW),
                ]
            )
        )
    load_state_dict(model, state_dict, strict=True)
    runner._has_loaded = True  # what mmengine's own load_checkpoint records
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


@RUNNERS.register_module()
class StrictLoadRunner(Runner):
    """mmengine's Runner whose ``load_checkpoint`` is strict unless asked otherwise, so
    ``load_from`` and ``resume`` (which loads through it) refuse a checkpoint of another model.
    The runtime configs name it in ``runner_type``, which mmseg's and mmdet's train scripts
    honour too. A deliberate partial ``load_from`` (a deeper model, another head) sets
    ``load_from_strict = False`` in the config: mmengine's lenient load, with a warning; a
    resume stays strict.

    Also: a config key that is a typo stops the run before it is built (``check_config_keys``),
    and resuming a work dir with nothing to resume stops naming what the folder holds, where a
    copied work dir resumes from its own files (``checkpoint_to_resume``); and each training
    iteration draws from torch's generators seeded from (seed, iteration)
    (``IterationSeedHook``, added to ``custom_hooks`` where the config has none), so that a
    resumed run trains as the uninterrupted one."""

    @classmethod
    def from_cfg(cls, cfg):
        check_config_keys(cfg)
        return super().from_cfg(with_iteration_seed(cfg))

    def load_or_resume(self) -> None:
        if self._resume and self._load_from is None and not self._has_loaded:
            config_copy = osp.basename(self.cfg.filename or f'{self.timestamp}.py')
            self._load_from = checkpoint_to_resume(self.work_dir, (self.timestamp, config_copy))
        return super().load_or_resume()

    def load_checkpoint(self, filename, map_location='cpu', strict=True, revise_keys=MODULE_PREFIX):
        partial = not self._resume and self.cfg.get('load_from_strict', True) is False
        if partial:
            self.logger.warning(
                f'load_from_strict=False: loading {filename} partially; the weights it lacks or '
                'holds in another shape keep their initialisation (listed below)'
            )
        if not strict or partial:
            return super().load_checkpoint(filename, map_location, False, revise_keys)
        return load_checkpoint_strict(self, filename, map_location, revise_keys)


def with_iteration_seed(cfg):
    """``cfg`` with an IterationSeedHook in ``custom_hooks`` (a copy; ``cfg`` itself when it has
    one already)."""
    hooks = list(cfg.get('custom_hooks') or [])
    name = IterationSeedHook.__name__
    if any(isinstance(h, dict) and h.get('type') in (name, IterationSeedHook) for h in hooks):
        return cfg
    cfg = copy.deepcopy(cfg)
    cfg.custom_hooks = [*hooks, dict(type=name)]
    return cfg
