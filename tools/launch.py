"""What tools/train.py and tools/test.py share: config from the command line, and a Runner
that also works distributed on CPU (gloo) when no GPU is present."""
import datetime
import os
import os.path as osp
from contextlib import contextmanager

import torch
import torch.distributed as dist
from mmengine.config import Config
from mmengine.logging import print_log
from mmengine.registry import RUNNERS
from mmengine.runner import Runner

import vitspec  # noqa: F401  registers modules and the safe checkpoint loader
from tools.progress_hook import add_progress_bar

DIST_TIMEOUT_S = int(os.environ.get('VITSPEC_DIST_TIMEOUT', 1800))


def config_from_args(args) -> Config:
    cfg = Config.fromfile(args.config)
    if args.cfg_options:
        cfg.merge_from_dict(args.cfg_options)
    cfg.launcher = args.launcher
    if args.work_dir:
        cfg.work_dir = args.work_dir
    elif cfg.get('work_dir') is None:
        cfg.work_dir = osp.join('./work_dirs', osp.splitext(osp.basename(args.config))[0])
    return cfg


def _replace_sync_bn(node):
    """SyncBN needs CUDA; on CPU the same model uses BN (statistics stay per process)."""
    if isinstance(node, dict):
        if node.get('type') == 'SyncBN':
            node['type'] = 'BN'
        for value in node.values():
            _replace_sync_bn(value)
    elif isinstance(node, (list, tuple)):
        for value in node:
            _replace_sync_bn(value)


def setup_cpu_distributed(cfg: Config):
    """mmengine's init_dist calls torch.cuda.set_device; on CPU start gloo ourselves first
    (the Runner then skips its own init) and wrap the model in DDP without device ids. With BN
    in place of SyncBN, buffers are broadcast from rank 0 so that every rank (and the saved
    checkpoint) holds the same running statistics."""
    if not dist.is_initialized():
        dist.init_process_group('gloo', timeout=datetime.timedelta(seconds=DIST_TIMEOUT_S))
    cfg.model_wrapper_cfg = dict(type='MMDistributedDataParallel', device_ids=None,
                                 broadcast_buffers=True,
                                 find_unused_parameters=cfg.get('find_unused_parameters', False))
    _replace_sync_bn(cfg.model)
    print_log('no CUDA: distributed on CPU with gloo, SyncBN replaced by BN', logger='current')


def guard_nonfinite_loss(cfg: Config):
    """A plain OptimWrapper becomes FiniteLossOptimWrapper: a NaN/inf loss stops training
    (or, with optim_wrapper.nonfinite='skip', skips the step) instead of reaching the weights."""
    wrapper = cfg.get('optim_wrapper')
    if wrapper is not None and wrapper.get('type', 'OptimWrapper') == 'OptimWrapper':
        wrapper['type'] = 'FiniteLossOptimWrapper'


def build_runner(cfg: Config) -> Runner:
    guard_nonfinite_loss(cfg)
    add_progress_bar(cfg)  # validation and test batches, on a terminal only
    cfg.custom_hooks = [*cfg.custom_hooks, dict(type='EmptyDatasetCheckHook'),
                        dict(type='UnusedParameterCheckHook')]
    if not torch.cuda.is_available():
        if cfg.launcher != 'none':
            setup_cpu_distributed(cfg)
        else:
            _replace_sync_bn(cfg.model)
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
        from vitspec.datasets import DataFileError
        roots = {split: cfg[f'{split}_dataloader'].dataset.get('data_root')
                 for split in ('train', 'val', 'test') if cfg.get(f'{split}_dataloader')}
        raise DataFileError(f'a dataset is empty: no samples found under {roots}') from None


def shutdown_distributed():
    """Destroy the process group before the interpreter exits: left to the interpreter's
    teardown, gloo's threads can abort the process ('terminate called without an active
    exception') after a run that succeeded."""
    if dist.is_available() and dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()
