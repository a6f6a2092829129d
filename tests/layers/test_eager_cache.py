"""vitspec.layers.eager_cache: kept in eager calls, built anew (and nothing kept) when traced."""

import pytest
import torch
import torch._dynamo.utils
from torch._subclasses.fake_tensor import FakeTensorMode

from vitspec.layers.dct import dct, idct
from vitspec.layers.eager_cache import EagerCache

DYNAMO_WARNING = 'error:Dynamo detected a call to a `functools.lru_cache`'


def counting_cache():
    built = []

    def build(n):
        built.append(n)
        return torch.arange(n)

    return EagerCache(build, maxsize=4), built


def test_eager_calls_share_one_result_per_key():
    cache, built = counting_cache()
    eager = torch.zeros(1)
    assert cache(eager, 3) is cache(eager, 3)
    assert cache(eager, 5) is not cache(eager, 3)
    assert built == [3, 5]


def test_a_fake_tensors_call_builds_anew_and_keeps_nothing_for_eager():
    cache, built = counting_cache()
    with FakeTensorMode() as mode:
        fake = mode.from_tensor(torch.zeros(1))
        made_in_trace = cache(fake, 3)
        cache(fake, 3)
    assert built == [3, 3]
    assert cache.kept.cache_info().currsize == 0
    eager = cache(torch.zeros(1), 3)
    assert type(eager) is torch.Tensor and eager is not made_in_trace
    assert torch.equal(eager, torch.arange(3))


@pytest.mark.filterwarnings(DYNAMO_WARNING)
def test_the_dct_compiles_without_reading_its_kept_plans(monkeypatch):
    monkeypatch.setattr(torch._dynamo.utils, 'warn_once_cache', set())  # warned before: again
    x = torch.randn(2, 3, 10, dtype=torch.float64)
    dct(x)  # an eager plan of this size is kept: the compiled call must not read it
    compiled = torch.compile(lambda t: idct(dct(t, dim=1), dim=1), backend='eager', fullgraph=True)
    torch.testing.assert_close(compiled(x), x)
