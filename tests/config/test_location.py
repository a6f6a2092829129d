"""vitspec.config.location: the package finds its configs, and ``vitspec::`` names them from any
folder (the installed copy is tested in tests/e2e/test_wheel_install.py)."""

import pytest

from tests.utils import ROOT
from vitspec.config.load import load_config
from vitspec.config.location import SHIPPED, config_dir, config_path

DEMO = 'demo/fcn_specvit-tiny-p8-plain_2xb4-500it_demo-ade20k-128x128.py'


def test_config_dir_in_a_checkout_is_its_configs():
    assert config_dir() == (ROOT / 'configs').resolve()
    assert (config_dir() / '_base_').is_dir()


def test_the_package_links_its_configs_to_the_checkout():
    """What an editable install reads: vitspec/.mim/configs is the checkout's configs/."""
    assert SHIPPED.is_symlink() and SHIPPED.resolve() == (ROOT / 'configs').resolve()


def test_config_path_reads_vitspec_names_in_config_dir_and_keeps_paths():
    assert config_path(f'vitspec::{DEMO}') == str(config_dir() / DEMO)
    assert config_path(f'configs/{DEMO}') == f'configs/{DEMO}'


def test_config_path_names_a_missing_config():
    with pytest.raises(FileNotFoundError, match='vitspec::demo/none.py: no such config'):
        config_path('vitspec::demo/none.py')


def test_a_vitspec_name_loads_from_another_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = load_config(f'vitspec::{DEMO}')
    assert cfg.filename == str(config_dir() / DEMO)
    assert cfg.model.backbone.type == 'SpecViT'
