import pytest

from tests.export.demo_models import DEMO_DEPTH, DEMO_SEG, demo_model


@pytest.fixture
def demo_segmentor():
    return demo_model(DEMO_SEG)


@pytest.fixture
def demo_depth():
    return demo_model(DEMO_DEPTH)
