"""Demo checkpoints (demo_checkpoints.py) and folders of real samples for the inference tests."""

from pathlib import Path

import pytest

from tests.inference.demo_checkpoints import DEPTHER, SEGMENTER, save_demo_checkpoint


@pytest.fixture(scope='session')
def segmenter_checkpoint(tmp_path_factory) -> Path:
    return save_demo_checkpoint(SEGMENTER, tmp_path_factory.mktemp('seg') / 'iter_0.pth')


@pytest.fixture(scope='session')
def depth_checkpoint(tmp_path_factory) -> Path:
    return save_demo_checkpoint(DEPTHER, tmp_path_factory.mktemp('depth') / 'iter_0.pth')


@pytest.fixture(scope='session')
def ade_images(realdata) -> Path:
    return realdata / 'ade20k/ADEChallengeData2016/images/validation'


@pytest.fixture(scope='session')
def nyu_images(realdata) -> list:
    return [realdata / 'nyu/images', realdata / 'nyu/rgb_only_no_gt']
