"""A run's Runner from its config: the config with its ``--cfg-options`` and work dir, the
mixed-precision form of its optimizer wrapper, and a Runner that also works distributed on CPU
(gloo) when no GPU is present. tools/train.py and tools/test.py build their Runner here.

Everything a run does (finite-loss guard, hooks, safe checkpoint I/O) is declared by the config
itself, so mmseg's and mmdet's own tools/train.py run our configs the same way.
"""

import datetime
import gc
import os
import os.path as osp
from contextlib import contextmanager

import torch
import torch.distributed as dist
from mmengine.config import Config
from mmengine.logging import print_log
from mmengine.registry import RUNNERS
from mmengine.runner import Runner

from vitspec.config.cfg_options import merge_cfg_options
from vitspec.config.load import load_config
from vitspec.engine.optim.finite_loss_amp import AMP_DTYPES, AMP_FORM, AMP_WRAPPERS
from vitspec.errors import ConfigError, DataFileError

DIST_TIMEOUT_S = int(os.environ.get('VITSPEC_DIST_TIMEOUT', 1800))


def config_from_args(args) -> Config:
    cfg = load_config(args.config)
    if args.cfg_options:
        merge_cfg_options(cfg, args.cfg_options)
    cfg.launcher = args.launcher
    if args.work_dir:
        cfg.work_dir = args.work_dir
    elif cfg.get('work_dir') is None:
        cfg.work_dir = osp.join('./work_dirs', osp.splitext(osp.basename(args.config))[0])
    return cfg


def enable_amp(cfg: Config, dtype: str = None) -> Config:
    """The config's optimizer wrapper in its mixed-precision form, finite-loss guard kept.

    ``dtype``: 'fp16' (dynamic loss scaling) or 'bf16' (no loss scaling: bfloat16 has
    float32's exponent range); None keeps the config's (float16 unless it names one)."""
    kind = cfg.optim_wrapper.get('type', 'OptimWrapper')
    if kind in AMP_FORM:
        cfg.optim_wrapper.type = AMP_FORM[kind]
        cfg.optim_wrapper.setdefault('loss_scale', 'dynamic')
    elif kind not in AMP_WRAPPERS:
        raise ConfigError(
            f'--amp: optim_wrapper.type {kind!r} has no mixed-precision form here '
            f'(known: {", ".join(sorted(AMP_FORM))}; already mixed precision: '
            f'{", ".join(AMP_WRAPPERS)})'
        )
    if dtype is not None:
        if dtype not in AMP_DTYPES:
            raise ConfigError(f'--amp: dtype must be one of {sorted(AMP_DTYPES)}, got {dtype!r}')
        cfg.optim_wrapper.dtype, loss_scale = AMP_DTYPES[dtype]
        if dtype == 'bf16' or cfg.optim_wrapper.get('loss_scale') in (None, dict(enabled=False)):
            cfg.optim_wrapper.loss_scale = loss_scale
    return cfg


def setup_cpu_distributed(cfg: Config):
    """mmengine's init_dist calls torch.cuda.set_device, so on CPU the launcher starts gloo
    itself (the Runner then skips its own init) and names the CPU model wrapper, which reverts
    SyncBN to BN and broadcasts buffers."""
    if not dist.is_initialized():
        dist.init_process_group('gloo', timeout=datetime.timedelta(seconds=DIST_TIMEOUT_S))
    cfg.model_wrapper_cfg = dict(
        type='CPUDistributedDataParallel',
        find_unused_parameters=cfg.get('find_unused_parameters', False),
    )
    print_log('no CUDA: distributed on CPU with gloo, SyncBN reverted to BN', logger='current')


def build_runner(cfg: Config) -> Runner:
    if cfg.get('launcher', 'none') != 'none' and not torch.cuda.is_available():
        setup_cpu_distributed(cfg)
    if 'runner_type' in cfg:
        return RUNNERS.build(cfg)
    return Runner.from_cfg(cfg)


@contextmanager
def empty_datasets_explained(cfg: Config):
    """mmengine fails on a dataset without samples deep in its serialization
    ('need at least one array to concatenate'); say which data roots were searched instead.
    Datasets that are not serialized are caught by EmptyDatasetCheckHook."""
    try:
        yield
    except ValueError as exc:
        if 'need at least one array to concatenate' not in str(exc):
            raise
        roots = {
            split: cfg[f'{split}_dataloader'].dataset.get('data_root')
            for split in ('train', 'val', 'test')
            if cfg.get(f'{split}_dataloader')
        }
        raise DataFileError(f'a dataset is empty: no samples found under {roots}') from None


def shutdown_distributed():
    """Destroy the process group before the interpreter exits: left to the interpreter's
    teardown, gloo's threads can abort the process ('terminate called without an active
    exception', SIGABRT) after a run that succeeded. Call it after the last reference to the
    Runner is gone: a Runner sits in reference cycles (its loops point back at it) with its DDP
    wrapper, which holds the group, and only the cyclic collector frees it. Collected here,
    while the interpreter is whole, not at some later collection or during its teardown (seen
    2026-12-06 in the test suite: a gloo rank aborted so after its run)."""
    gc.collect()
    if dist.is_available() and dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()
