"""tools/train.py in a work dir that holds another model's checkpoints: refused before the
Runner writes anything, unless the run resumes; the same model's checkpoints are no reason."""

import pytest

from tests.inference.demo_checkpoints import DEPTHER, SEGMENTER, save_demo_checkpoint
from tests.utils import load_tool
from vitspec.config.load import load_config
from vitspec.errors import ConfigError
from vitspec.runs.earlier_checkpoints import refuse_other_models_checkpoints

train = load_tool('train')


def config_in(work_dir, config=SEGMENTER, resume=False):
    cfg = load_config(str(config))
    cfg.work_dir, cfg.resume = str(work_dir), resume
    return cfg


def test_another_models_checkpoints_are_refused_unless_resuming(tmp_path):
    save_demo_checkpoint(DEPTHER, tmp_path / 'iter_4.pth')
    with pytest.raises(ConfigError, match=r'holds checkpoints of another model \(iter_4.pth'):
        refuse_other_models_checkpoints(config_in(tmp_path))
    refuse_other_models_checkpoints(config_in(tmp_path, resume=True))
    refuse_other_models_checkpoints(config_in(tmp_path, config=DEPTHER))
    refuse_other_models_checkpoints(config_in(tmp_path / 'new'))


def test_the_training_tool_refuses_before_it_writes(tmp_path):
    earlier = save_demo_checkpoint(DEPTHER, tmp_path / 'iter_4.pth')
    before = earlier.read_bytes()
    with pytest.raises(ConfigError, match='--work-dir, or --resume'):
        train.main([str(SEGMENTER), '--work-dir', str(tmp_path)])
    assert earlier.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith('.')) == [
        'iter_4.pth'
    ]
