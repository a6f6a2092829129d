"""Run from another folder, a relative path of the config is not found: the error says that it
is relative to the current folder, which folder that is, and where the path does exist."""

import pytest
from mmengine.config import Config
from mmseg.datasets import ADE20KDataset

from vitspec.config.relative_paths import relative_paths_explained

DATA_ROOT = 'data/demo/ade'


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A checkout with a config and its data, and the current folder elsewhere."""
    root = tmp_path / 'checkout'
    (root / 'configs').mkdir(parents=True)
    (root / DATA_ROOT / 'images' / 'training').mkdir(parents=True)
    (root / 'configs' / 'x.py').write_text(f'data_root = {DATA_ROOT!r}\n')
    (tmp_path / 'elsewhere').mkdir()
    monkeypatch.chdir(tmp_path / 'elsewhere')
    return root


def build_ade(data_root):
    """What the dataloader does first: mmseg lists the image folder."""
    return ADE20KDataset(
        data_root=data_root,
        data_prefix=dict(img_path='images/training', seg_map_path='annotations/training'),
        lazy_init=False,
    )


def test_a_relative_data_root_names_the_current_folder_and_where_it_is(checkout, tmp_path):
    config = checkout / 'configs' / 'x.py'
    with pytest.raises(FileNotFoundError) as info:
        with relative_paths_explained(str(config), Config.fromfile(config)):
            build_ade(DATA_ROOT)
    assert str(info.value) == (
        f"No such file or directory: '{DATA_ROOT}/images/training'. The path is relative, so "
        f'it is looked up in the current folder, {tmp_path}/elsewhere, which is the folder the '
        f"command was run from (not the config's folder). It is there under {checkout}: run "
        f'from that folder (cd {checkout}), or give --cfg-options '
        f'data_root={checkout}/{DATA_ROOT}.'
    )


def test_a_path_found_nowhere_says_how_to_fix_it(checkout, tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        with relative_paths_explained(str(checkout / 'configs' / 'x.py')):
            open('data/demo/nyu/x')
    message = str(info.value)
    here = f'{tmp_path}/elsewhere'
    assert (
        f"'data/demo/nyu/x'. The path is relative, so it is looked up in the current folder, {here}"
        in message
    )
    assert 'give absolute ones (e.g. --cfg-options data_root=/abs/path)' in message
    assert 'The demo data is written by tools/make_demo_data.py' in message


def test_absolute_paths_are_left_alone(checkout, tmp_path):
    missing = tmp_path / 'nope.json'
    with pytest.raises(FileNotFoundError) as info:
        with relative_paths_explained(str(checkout / 'configs' / 'x.py')):
            open(missing)
    assert info.value.filename == str(missing)
