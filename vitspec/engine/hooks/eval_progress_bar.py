"""A progress bar over validation and test batches (mmengine logs only every N batches there).

Shown on rank 0 and only on a terminal, so log files stay free of carriage returns. The bar
counts this process's batches (each rank sees its share of the data set).
"""

import sys

from mmengine.dist import get_rank
from mmengine.hooks import Hook
from mmengine.registry import HOOKS
from mmengine.utils import ProgressBar


@HOOKS.register_module()
class EvalProgressBarHook(Hook):
    priority = 'VERY_LOW'

    def __init__(self, force: bool = False):
        self.force = force
        self.bar = None

    def _start(self, dataloader):
        if get_rank() == 0 and (self.force or sys.stdout.isatty()):
            self.bar = ProgressBar(len(dataloader), file=sys.stdout)

    def _step(self):
        if self.bar is not None:
            self.bar.update()

    def _end(self):
        if self.bar is not None:
            self.bar.file.write('\n')
            self.bar = None

    def before_val_epoch(self, runner):
        self._start(runner.val_dataloader)

    def before_test_epoch(self, runner):
        self._start(runner.test_dataloader)

    def after_val_iter(self, runner, batch_idx, data_batch=None, outputs=None):
        self._step()

    def after_test_iter(self, runner, batch_idx, data_batch=None, outputs=None):
        self._step()

    def after_val_epoch(self, runner, metrics=None):
        self._end()

    def after_test_epoch(self, runner, metrics=None):
        self._end()
