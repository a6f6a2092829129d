"""Each value of a built config is named by the last file of its _base_ chain that set or
changed it, or by --cfg-options; an option key whose parent the config lacks is refused."""

import pytest
from mmengine.config import Config

from vitspec.config.origins import (
    CFG_OPTIONS,
    check_option_keys,
    display_name,
    value_origins,
    with_options,
)
from vitspec.errors import ConfigKeyError


@pytest.fixture
def chain(tmp_path):
    """a.py <- b.py <- c.py, and d.py beside b.py: c inherits [b, d]."""
    files = {
        'a.py': "x = 1\nd = dict(p=1, q=2)\npipeline = [dict(type='A'), dict(type='B')]\n",
        'b.py': "_base_ = './a.py'\nd = dict(q=3)\nx = 1\n"
        "pipeline = [dict(type='A'), dict(type='B', k=1)]\n",
        'd.py': 'technique = dict(specialize=True)\n',
        'c.py': "_base_ = ['./b.py', './d.py']\nd = dict(p=1.0)\ny = dict(_base_.technique)\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_the_last_file_that_set_or_changed_a_value_is_its_origin(chain):
    origins = {key: file.rsplit('/', 1)[-1] for key, file in value_origins(chain / 'c.py').items()}
    assert origins == {
        'x': 'a.py',  # b sets it again to the same value: still a's
        'd.p': 'c.py',  # 1 -> 1.0: another type is a change
        'd.q': 'b.py',
        'pipeline.0.type': 'a.py',
        'pipeline.1.type': 'a.py',
        'pipeline.1.k': 'b.py',
        'technique.specialize': 'd.py',
        'y.specialize': 'c.py',  # copied from _base_.technique into a key c wrote
    }


def test_values_an_option_set_or_changed_are_the_options(chain):
    cfg = Config.fromfile(str(chain / 'c.py'))
    before = cfg.to_dict()
    cfg.merge_from_dict({'d.q': 4, 'x': 1, 'd.r': 0})
    origins = with_options(before, cfg.to_dict(), value_origins(chain / 'c.py'))
    assert origins['d.q'] == origins['d.r'] == CFG_OPTIONS
    assert origins['x'].endswith('a.py')  # set to the value it had


def test_an_option_key_below_a_key_the_config_lacks_names_the_closest(chain):
    cfg = Config.fromfile(str(chain / 'c.py'))
    check_option_keys(cfg, {'d.new': 1, 'new': 1, 'pipeline.1.type': 'C', 'pipeline[0].k': 2})
    with pytest.raises(ConfigKeyError, match=r"no 'dd' at the top level .*did you mean 'd'\?"):
        check_option_keys(cfg, {'dd.q': 1})
    with pytest.raises(ConfigKeyError, match=r"no 'k' under 'pipeline.0'"):
        check_option_keys(cfg, {'pipeline.0.k.z': 1})
    with pytest.raises(ConfigKeyError, match=r"no '5' under 'pipeline'"):
        check_option_keys(cfg, {'pipeline.5.type': 1})


def test_display_name_writes_package_configs_by_scope(tmp_path):
    mmseg = '/venv/lib/python3.11/site-packages/mmseg/.mim/configs/_base_/datasets/ade20k.py'
    assert display_name(mmseg) == 'mmseg::_base_/datasets/ade20k.py'
    assert display_name(str(tmp_path / 'x' / 'a.py'), root=tmp_path) == 'x/a.py'
    assert display_name('/elsewhere/a.py', root=tmp_path) == '/elsewhere/a.py'
    assert display_name(CFG_OPTIONS) == CFG_OPTIONS
