"""Check records (vitspec/datasets/check_record.py) of these tests are read from and written to a
folder of each test, never the user's cache."""

import pytest


@pytest.fixture(autouse=True)
def check_record_cache(tmp_path, monkeypatch):
    monkeypatch.setenv('VITSPEC_CACHE', str(tmp_path / 'vitspec-cache'))
