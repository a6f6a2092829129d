"""EoMT's mask annealing (tue-mps/eomt training/lightning_module.py): per-block polynomial decay
of the probability that the query-to-patch attention mask is applied."""

from types import SimpleNamespace

import pytest
import torch
from torch import nn

from vitspec.models.eomt.mask_annealing import MaskAnnealingHook, mask_keep_probability

# tue-mps/eomt configs/dinov2/ade20k/semantic/eomt_large_512.yaml
ADE_STARTS = [6520, 13040, 19560, 26080]
ADE_ENDS = [13040, 19560, 26080, 32600]


class Network(nn.Module):
    def __init__(self, num_blocks=4):
        super().__init__()
        self.register_buffer('attn_mask_probs', torch.ones(num_blocks))


def runner_at(it, model):
    return SimpleNamespace(iter=it, model=nn.ModuleDict(dict(network=model)))


@pytest.mark.parametrize(
    'it', [0, 6519, 6520, 7000, 9780, 13039, 13040, 20000, 32599, 32600, 10**6]
)
def test_probabilities_follow_upstreams_formula(it):
    hook = MaskAnnealingHook(ADE_STARTS, ADE_ENDS, power=0.9)
    for p, start, end in zip(hook.probabilities(it), ADE_STARTS, ADE_ENDS):
        if it < start:
            expected = 1.0
        elif it >= end:
            expected = 0.0
        else:
            expected = (1 - (it - start) / (end - start)) ** 0.9
        assert p == pytest.approx(expected, abs=1e-12)


def test_blocks_fade_one_after_another():
    hook = MaskAnnealingHook(ADE_STARTS, ADE_ENDS)
    assert hook.probabilities(9780) == pytest.approx([0.5**0.9, 1, 1, 1])
    assert hook.probabilities(22820) == pytest.approx([0, 0, 0.5**0.9, 1])
    assert mask_keep_probability(100, 0, 200, power=2.0) == pytest.approx(0.25)


def test_hook_writes_the_buffer_before_and_after_each_iteration():
    net = Network()
    hook = MaskAnnealingHook([10, 20, 30, 40], [20, 30, 40, 50])
    runner = runner_at(15, net)
    hook.before_train_iter(runner, batch_idx=15)
    assert net.attn_mask_probs.tolist() == pytest.approx([0.5**0.9, 1, 1, 1], rel=1e-6)
    hook.after_train_iter(runner, batch_idx=15)  # the value the next step (and a val) sees
    assert net.attn_mask_probs[0].item() == pytest.approx(0.4**0.9, rel=1e-6)
    hook.before_train_iter(runner_at(60, net), batch_idx=60)
    assert net.attn_mask_probs.tolist() == [0, 0, 0, 0]


def test_wrong_block_count_and_spans_are_refused():
    with pytest.raises(ValueError, match='attn_mask_probs'):
        MaskAnnealingHook([1, 2], [2, 3]).before_train_iter(runner_at(0, Network(4)), 0)
    with pytest.raises(ValueError, match='end_iters'):
        MaskAnnealingHook([1, 2], [2])
    with pytest.raises(ValueError, match='start_iters < end_iters'):
        MaskAnnealingHook([5], [5])
    with pytest.raises(ValueError, match='exactly one'):
        MaskAnnealingHook([1], [2]).before_train_iter(runner_at(0, nn.Linear(1, 1)), 0)


def test_bf16_buffer_gets_rounded_values():
    net = Network(1).to(torch.bfloat16)
    MaskAnnealingHook([0], [10]).before_train_iter(runner_at(5, net), 5)
    assert net.attn_mask_probs.dtype == torch.bfloat16
    assert net.attn_mask_probs.item() == pytest.approx(0.5**0.9, rel=1e-2)
