"""tools/test.py's checkpoint is the config's load_from, as in mmseg's tools/test.py: the Runner
loads it in ``runner.test()``, strictly whatever the config says (no runner_type, a partial
``load_from_strict = False``), and a runner_type that would load it leniently is refused."""

import pytest
import torch

from tests.engine.checkpointing.test_strict_load import demo_root, tiny_config  # noqa: F401
from vitspec.engine import CheckedRunner
from vitspec.errors import CheckpointError, ConfigError
from vitspec.runs.evaluation import set_test_checkpoint
from vitspec.runs.runner import build_runner


def saved_weights(cfg, path):
    """Weights for a model of ``cfg`` (its initial ones plus one: no model starts so), saved as
    training saves them."""
    built = build_runner(cfg).model.state_dict()
    state_dict = {k: v + 1 if v.is_floating_point() else v for k, v in built.items()}
    torch.save(dict(meta=dict(), state_dict=state_dict), path)
    return state_dict


def a_lenient_config(demo_root, work_dir):  # noqa: F811
    cfg = tiny_config(demo_root, work_dir, load_from_strict=False)
    cfg.pop('runner_type')
    return cfg


def test_runner_test_loads_the_checkpoint(demo_root, tmp_path):  # noqa: F811
    saved = saved_weights(tiny_config(demo_root, tmp_path / 'train'), tmp_path / 'w.pth')
    cfg = a_lenient_config(demo_root, tmp_path / 'test')
    set_test_checkpoint(cfg, str(tmp_path / 'w.pth'))
    runner = build_runner(cfg)
    assert isinstance(runner, CheckedRunner)
    assert 'mIoU' in runner.test()
    assert all(torch.equal(saved[k], v) for k, v in runner.model.state_dict().items())


def test_a_checkpoint_of_another_model_stops_the_test(demo_root, tmp_path):  # noqa: F811
    saved_weights(tiny_config(demo_root, tmp_path / 'train', width=48), tmp_path / 'w.pth')
    cfg = a_lenient_config(demo_root, tmp_path / 'test')
    set_test_checkpoint(cfg, str(tmp_path / 'w.pth'))
    with pytest.raises(CheckpointError, match='w.pth does not fit the model of this config'):
        build_runner(cfg).test()


def test_a_runner_that_loads_leniently_is_refused(demo_root, tmp_path):  # noqa: F811
    cfg = tiny_config(demo_root, tmp_path, runner_type='Runner')
    with pytest.raises(ConfigError, match="runner_type 'Runner' is no CheckedRunner"):
        set_test_checkpoint(cfg, 'w.pth')
