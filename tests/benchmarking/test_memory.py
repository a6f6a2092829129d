"""On CPU a step's memory is the peak of what autograd holds saved: everything a single backward
needs, but only one graph's worth when graphs are freed one after another (a probe grid)."""

import torch

from vitspec.benchmarking.memory import step_memory_bytes

CPU = torch.device('cpu')


def _graph_bytes(x):
    y = (x * x).sum()  # mul saves both of its inputs
    return y, 2 * x.numel() * x.element_size()


def test_one_backward_holds_every_graph():
    x = torch.ones(1000, requires_grad=True)

    def step():
        losses = [_graph_bytes(x) for _ in range(3)]
        sum(loss for loss, _ in losses).backward()

    assert step_memory_bytes(step, CPU) == 3 * _graph_bytes(x)[1]


def test_graphs_freed_in_turn_hold_one_at_a_time():
    x = torch.ones(1000, requires_grad=True)

    def step():
        for _ in range(3):
            loss, _ = _graph_bytes(x)
            loss.backward()

    assert step_memory_bytes(step, CPU) == _graph_bytes(x)[1]
