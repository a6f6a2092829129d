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


@pytest.mark.parametrize('same_bias', [True, False])
def test_lora_inference_at_init_is_the_shared_linear_plus_the_bias_difference(same_bias):
    """With B = 0 inference adds no GEMM: the output is F.linear's bit for bit (plus the bias
    difference on the CLS rows); once B moves, the merged CLS weight takes over."""
    torch.manual_seed(0)
    layer = SpecializedLinear(8, 6, lora_rank=2)
    if not same_bias:
        nn.init.normal_(layer.cls_bias)
    x = torch.randn(2, 5, 8)
    expected = nn.functional.linear(x, layer.weight, layer.bias)
    expected[:, :1] += layer.cls_bias - layer.bias
    with torch.no_grad():
        inferred = layer(x, 1)
        assert torch.equal(inferred[:, 1:], expected[:, 1:])
        if same_bias:
            assert torch.equal(inferred, expected)
        torch.testing.assert_close(inferred, expected)
        layer.cls_lora_b.normal_()
        moved = layer(x, 1)
    assert not torch.allclose(moved[:, :1], inferred[:, :1])
    torch.testing.assert_close(moved, layer(x, 1).detach())


def test_lora_inference_on_the_meta_device_has_its_shapes():
    """Built on the meta device (shape checks of whole configs), B's values are unknown: the
    merged form is taken, without reading them."""
    with torch.device('meta'):
        layer = SpecializedLinear(8, 6, lora_rank=2)
        with torch.no_grad():
            out = layer(torch.empty(2, 5, 8), 1)
    assert out.shape == (2, 5, 6) and out.is_meta
