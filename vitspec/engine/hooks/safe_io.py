"""Safe checkpoint I/O for the length of a run: loading with the allow-list, atomic writes, no
checkpoint with non-finite weights, no temporary files left by a killed save."""

import os.path as osp

from mmengine.dist import is_main_process
from mmengine.hooks import Hook
from mmengine.logging import print_log
from mmengine.registry import HOOKS

from vitspec.fileio import install_safe_io, remove_stale_temporaries

from ..checkpointing.finite_weights import check_finite_weights


@HOOKS.register_module()
class SafeIOHook(Hook):
    """Calls ``vitspec.fileio.install_safe_io`` in ``before_run``, which mmengine's Runner calls
    before it initialises the weights or loads / resumes a checkpoint (``train``, ``val`` and
    ``test``), and puts mmengine's own loader and backend back in ``after_run``. Highest
    priority: the other hooks' ``before_run`` already sees the atomic backend, and the weights
    are checked before another hook (EMA) changes what is saved.

    A training run (rank 0) first removes the temporary files that a save killed mid-write
    (``kill -9``) left in the work dir and the checkpoint folder: only a training run writes
    checkpoints there, and tools/train.py lets one at a time own the work dir."""

    priority = 'HIGHEST'

    def __init__(self):
        self._restore = None

    def before_run(self, runner) -> None:
        self._restore = install_safe_io()

    def before_train(self, runner) -> None:
        if not is_main_process():
            return
        for folder in checkpoint_folders(runner):
            removed = remove_stale_temporaries(folder)
            if removed:
                print_log(
                    f'removed {len(removed)} temporary file(s) of an interrupted save in '
                    f'{folder}: {", ".join(removed)}',
                    logger='current',
                )

    def before_save_checkpoint(self, runner, checkpoint: dict) -> None:
        check_finite_weights(checkpoint)

    def after_run(self, runner) -> None:
        if self._restore is not None:
            self._restore()
            self._restore = None


def checkpoint_folders(runner) -> list:
    """The work dir, and the folder a CheckpointHook with an ``out_dir`` saves to (mmengine
    appends the work dir's name to it in the hook's own ``before_train``, which runs later)."""
    folders = [runner.work_dir]
    for hook in runner.hooks:
        out_dir = getattr(hook, 'out_dir', None)
        if type(hook).__name__ == 'CheckpointHook' and out_dir and out_dir != runner.work_dir:
            folders.append(osp.join(out_dir, osp.basename(osp.normpath(runner.work_dir))))
    return folders
