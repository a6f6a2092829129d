"""ADE20K's check finds the challenge folder in SRC or as SRC, and names the full release."""

import pytest

from vitspec.datasets.preparation.ade20k import challenge_root
from vitspec.errors import DataFileError


def test_the_challenge_folder_is_found_and_the_full_release_named(tmp_path):
    root = tmp_path / 'ade' / 'ADEChallengeData2016'
    for folder in ('images', 'annotations'):
        (root / folder).mkdir(parents=True)
    assert challenge_root(tmp_path / 'ade') == root == challenge_root(root)
    (tmp_path / 'full/dataset/ADE20K_2021_17_01/images/ADE').mkdir(parents=True)
    with pytest.raises(DataFileError, match='full ADE20K release'):
        challenge_root(tmp_path / 'full')
    with pytest.raises(DataFileError, match='annotations is missing'):
        challenge_root((root / 'annotations').rmdir() or root)
