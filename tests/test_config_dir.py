from tests.utils import ROOT
from vitspec.config_dir import config_dir


def test_config_dir_in_a_checkout_is_its_configs():
    assert config_dir() == (ROOT / 'configs').resolve()
    assert (config_dir() / '_base_').is_dir()
