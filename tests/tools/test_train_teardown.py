"""tools/train.py and tools/test.py free their Runner before the process group is destroyed:
a Runner sits in reference cycles with its DDP wrapper, which holds the group, and left to a
later collection or the interpreter's teardown it took a gloo rank down with SIGABRT after a
run that succeeded (vitspec.runs.runner.shutdown_distributed)."""

import weakref

import pytest

from tests.utils import ROOT, make_demo_data
from tools import test as test_tool
from tools import train as train_tool

DEMO = 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'


def runners_recorded(monkeypatch, tool):
    """Each Runner the tool builds, as a weak reference; and whether every one was gone when
    shutdown_distributed had collected."""
    built, gone_at_shutdown = [], []
    build, shutdown = tool.build_runner, tool.shutdown_distributed

    def recording_build(cfg):
        runner = build(cfg)
        built.append(weakref.ref(runner))
        return runner

    def checked_shutdown():
        shutdown()
        gone_at_shutdown.append(all(ref() is None for ref in built))

    monkeypatch.setattr(tool, 'build_runner', recording_build)
    monkeypatch.setattr(tool, 'shutdown_distributed', checked_shutdown)
    return built, gone_at_shutdown


@pytest.mark.slow
def test_train_then_test_hold_no_runner_when_the_process_group_goes(monkeypatch, tmp_path):
    root = make_demo_data(tmp_path / 'data', 'ade20k', 2, 1)
    work = tmp_path / 'work'
    options = [f'{s}_dataloader.dataset.data_root={root}' for s in ('train', 'val', 'test')]
    options += ['train_cfg.max_iters=1', 'train_cfg.val_interval=2']
    options += ['default_hooks.checkpoint.interval=1', 'randomness.seed=0']

    built, gone = runners_recorded(monkeypatch, train_tool)
    train_tool.main([str(ROOT / DEMO), '--work-dir', str(work), '--cfg-options', *options])
    assert len(built) == 1 and gone == [True]

    built, gone = runners_recorded(monkeypatch, test_tool)
    argv = [str(ROOT / DEMO), str(work / 'iter_1.pth'), '--work-dir', str(work)]
    test_tool.main([*argv, '--cfg-options', *options])
    assert len(built) == 1 and gone == [True]
