from pathlib import Path

import pytest

from tests.utils import REALDATA, restored_mmengine_instances
from vitspec.fileio import safe_io_installed
from vitspec.fileio.install import LocalIOState

E2E = Path(__file__).resolve().parent / 'e2e'


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(items):
    """Every test under tests/e2e runs a tool or a training job end to end: e2e and slow."""
    for item in items:
        if item.path.is_relative_to(E2E):
            item.add_marker(pytest.mark.e2e)
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope='session')
def realdata() -> Path:
    if not REALDATA.is_dir():
        pytest.skip(f'{REALDATA} not present')
    return REALDATA


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef):
    """A module or session fixture sets up outside any one test's restore below: a model it
    loads would leave its default scope (mmdet's) current for every later test on the worker."""
    if fixturedef.scope == 'function':
        return (yield)
    with restored_mmengine_instances():
        return (yield)


@pytest.fixture(autouse=True)
def _mmengine_instances_restored():
    """Each test starts from the mmengine global instances that existed before it."""
    with restored_mmengine_instances():
        yield


@pytest.fixture(autouse=True)
def _mmengine_file_io_restored():
    """A Runner that raises never reaches SafeIOHook's after_run, which takes vitspec's safe
    loader and atomic backend out of mmengine again: the next test finds mmengine's file I/O as
    this one found it (else a test of mmengine's own loading depends on the test order)."""
    before, installed = LocalIOState(), safe_io_installed()
    yield
    if safe_io_installed() != installed:
        before.restore()
