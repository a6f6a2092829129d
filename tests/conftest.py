import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.utils import REALDATA  # noqa: E402


@pytest.fixture(scope='session')
def realdata() -> Path:
    if not REALDATA.is_dir():
        pytest.skip(f'{REALDATA} not present')
    return REALDATA
