import pytest
import torch
from torch import nn

from vitspec.layers.parameter_cache import MAX_ENTRIES, ParameterCache
from vitspec.layers.specialized import SpecializedLinear


class Counted:
    """A build function that counts its calls and returns the weight doubled."""

    def __init__(self, weight):
        self.weight, self.calls = weight, 0

    def __call__(self):
        self.calls += 1
        return self.weight * 2


def test_reused_while_the_parameter_is_unchanged_and_only_without_autograd():
    weight = nn.Parameter(torch.ones(3))
    cache, build = ParameterCache(), Counted(weight)
    with torch.no_grad():
        first = cache.get('k', [weight], build)
        assert cache.get('k', [weight], build) is first and build.calls == 1
    assert cache.get('k', [weight], build).requires_grad and build.calls == 2  # under autograd


@pytest.mark.parametrize('change', ['optimizer step', 'load_state_dict', 'to double'])
def test_rebuilt_after_the_parameter_changes(change):
    layer = nn.Linear(3, 1)
    cache, build = ParameterCache(), Counted(layer.weight)
    with torch.no_grad():
        cache.get('k', [layer.weight], build)
    if change == 'optimizer step':
        layer(torch.ones(1, 3)).sum().backward()
        torch.optim.SGD(layer.parameters(), lr=1.0).step()
    elif change == 'load_state_dict':
        layer.load_state_dict({'weight': torch.zeros(1, 3), 'bias': torch.zeros(1)})
    else:
        layer.double()
        build.weight = layer.weight
    with torch.no_grad():
        value = cache.get('k', [layer.weight], build)
    assert build.calls == 2
    torch.testing.assert_close(value, layer.weight * 2)


def test_entries_are_bounded():
    weight = nn.Parameter(torch.ones(3))
    cache = ParameterCache()
    with torch.no_grad():
        for key in range(MAX_ENTRIES + 3):
            cache.get(key, [weight], Counted(weight))
    assert 0 < len(cache) <= MAX_ENTRIES


def test_lora_inference_follows_its_parameters():
    """The CLS weight difference formed for inference is formed again when training changes
    the LoRA factors: inference equals the autograd path before and after a step."""
    torch.manual_seed(0)
    layer = SpecializedLinear(8, 6, lora_rank=2)
    nn.init.normal_(layer.cls_lora_b)
    x = torch.randn(2, 5, 8)
    for _ in range(2):
        with torch.no_grad():
            inferred = layer(x, 1)
        torch.testing.assert_close(inferred, layer(x, 1).detach())
        layer(x, 1).square().sum().backward()
        torch.optim.SGD(layer.parameters(), lr=0.1).step()
        layer.zero_grad()
