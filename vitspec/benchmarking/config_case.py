"""One training config in the process that runs it: its model and optimizer wrapper built as
mmengine's Runner builds them, one ``model.train_step`` (or, in inference mode, one
``model.test_step``) on a random batch per call."""

import copy
import time
from contextlib import contextmanager

import torch
from mmengine.model import revert_sync_batchnorm
from mmengine.optim import AmpOptimWrapper, build_optim_wrapper
from mmengine.registry import MODELS, init_default_scope

from vitspec.config.probe_grid import GRID_KEY, grid_config, is_grid
from vitspec.errors import ConfigError
from vitspec.mmcv_ops.kernel_sets import use_kernels
from vitspec.models.probe_grid import ProbeGrid

from .config_source import crop_size, load_config, train_batch_size
from .memory import step_memory_bytes
from .random_batch import random_batch, task_of

MODES = ('training', 'inference')


class ConfigCase:
    """A config's training step at the config's crop size and batch (or ``batch``); with
    ``mode='inference'`` its ``test_step`` (the config's ``test_cfg``, e.g. sliding windows) on
    the same images, in eval mode, without gradients, in the optimizer wrapper's precision.

    No weights are loaded (``init_weights`` is not called: a step's time does not depend on
    them). SyncBN becomes BN, as the Runner does for a run without a process group.
    ``kernels``: whose kernels mmcv's ops run on in this process ('torchvision' or 'compiled';
    None: as installed).
    """

    def __init__(
        self, name, config, device, batch=None, cfg_options=None, mode='training', kernels=None
    ):
        if mode not in MODES:
            raise ConfigError(f'mode {mode!r} is not one of {MODES}')
        use_kernels(kernels)
        torch.manual_seed(0)
        self.name, self.device, self.mode = name, device, mode
        cfg = grid_config(_with_options(load_config(config), cfg_options or {}))
        init_default_scope(cfg.get('default_scope', 'mmengine'))
        self.model = revert_sync_batchnorm(MODELS.build(cfg.model)).to(device)
        self.model.train(mode == 'training')
        self.optim_wrapper = build_optim_wrapper(self.model, cfg.optim_wrapper)
        probe = self.model.first_probe if isinstance(self.model, ProbeGrid) else self.model
        self.task = task_of(cfg, probe)
        self.size = crop_size(cfg)
        self.batch = batch or train_batch_size(cfg)
        self.data = random_batch(self.task, probe, self.size, self.batch)
        # mmseg 1.x builds no AMP from a config's `fp16=dict(loss_scale=...)`: only the
        # optimizer wrapper decides; say so where a config still has the key
        self.fp16_key_ignored = 'fp16' in cfg and not self._amp()

    def _amp(self):
        return isinstance(self.optim_wrapper, AmpOptimWrapper)

    def describe(self):
        """What the step runs: task, batch, input size, optimizer wrapper and precision."""
        if self._amp():
            dtype = self.optim_wrapper.cast_dtype
            precision = 'bf16' if dtype == torch.bfloat16 else 'fp16'
        else:
            precision = 'fp32'
        return dict(
            mode=self.mode,
            task=self.task,
            batch=self.batch,
            size=list(self.size),
            optim_wrapper=type(self.optim_wrapper).__name__,
            precision=precision,
            fp16_key_ignored=self.fp16_key_ignored,
        )

    def _fresh_batch(self):
        return copy.deepcopy(self.data)  # data preprocessors pad the samples they are given

    def _run(self, data):
        if self.mode == 'training':
            self.model.train_step(data, self.optim_wrapper)
            return
        with self._inference_context():
            self.model.test_step(data)

    @contextmanager
    def _inference_context(self):
        with torch.no_grad(), self.optim_wrapper.optim_context(self.model):  # its autocast
            yield

    def step(self):
        self._run(self._fresh_batch())

    def timed(self):
        data = self._fresh_batch()
        sync = torch.cuda.synchronize if self.device.type == 'cuda' else (lambda: None)
        sync()
        start = time.perf_counter()
        self._run(data)
        sync()
        return time.perf_counter() - start

    def memory_bytes(self):
        return step_memory_bytes(self.step, self.device)


def _with_options(cfg, options: dict):
    """``options`` merged into ``cfg``, those under ``probe_grid.`` only into a grid config: one
    ``--cfg-options probe_grid.lr=[...]`` chooses the grid compared with its single probe."""
    grid_only = {k: v for k, v in options.items() if k.startswith(f'{GRID_KEY}.')}
    cfg.merge_from_dict({k: v for k, v in options.items() if k not in grid_only})
    if is_grid(cfg):
        cfg.merge_from_dict(grid_only)
    return cfg
