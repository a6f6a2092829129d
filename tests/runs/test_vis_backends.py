"""tools/train.py --vis-backend and the evaluation progress bar."""

import importlib.util
import io

import pytest
from mmengine.config import Config

from tests.utils import ROOT
from vitspec.engine import EvalProgressBarHook
from vitspec.runs.vis_backends import add_vis_backends

DEMO = str(ROOT / 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py')


@pytest.mark.parametrize(
    'name,kind', [('tensorboard', 'TensorboardVisBackend'), ('wandb', 'WandbVisBackend')]
)
def test_backend_added_or_missing_package_named(name, kind):
    cfg = Config.fromfile(DEMO)
    if importlib.util.find_spec(name) is None:
        with pytest.raises(ImportError, match=f'needs the {name} package'):
            add_vis_backends(cfg, [name], DEMO)
        return
    add_vis_backends(cfg, [name, name], DEMO)
    assert [b['type'] for b in cfg.visualizer.vis_backends] == ['LocalVisBackend', kind]


def test_tensorboard_writes_events(tmp_path):
    pytest.importorskip('tensorboard')
    from mmengine.visualization import Visualizer

    cfg = add_vis_backends(Config.fromfile(DEMO), ['tensorboard'], DEMO)
    backends = [dict(b) for b in cfg.visualizer.vis_backends]
    vis = Visualizer(name='tb_test', vis_backends=backends, save_dir=str(tmp_path))
    vis.add_scalars({'loss': 1.0}, step=1)
    vis.close()
    assert list(tmp_path.rglob('events.out.tfevents.*'))


def test_no_flag_changes_nothing():
    cfg = Config.fromfile(DEMO)
    before = cfg.visualizer.to_dict()
    assert add_vis_backends(cfg, [], DEMO).visualizer.to_dict() == before


def test_progress_bar_counts_batches(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr('sys.stdout', out)

    class Runner:
        val_dataloader = [0, 1, 2]

    hook = EvalProgressBarHook(force=True)
    hook.before_val_epoch(Runner)
    for i in range(3):
        hook.after_val_iter(Runner, i)
    hook.after_val_epoch(Runner)
    assert '3/3' in out.getvalue() and hook.bar is None


def test_progress_bar_only_on_a_terminal(monkeypatch):
    """The runtime configs list the hook for every run; off a terminal it draws nothing."""
    out = io.StringIO()
    monkeypatch.setattr('sys.stdout', out)

    class Runner:
        val_dataloader = [0, 1]

    hook = EvalProgressBarHook()
    hook.before_val_epoch(Runner)
    hook.after_val_iter(Runner, 0)
    hook.after_val_epoch(Runner)
    assert out.getvalue() == '' and hook.bar is None
