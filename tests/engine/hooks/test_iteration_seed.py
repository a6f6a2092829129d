"""IterationSeedHook: torch's generators are seeded before each training iteration from the run's
seed and the iteration, so that the draws of iteration N do not depend on what ran before it
(a resumed run); CheckedRunner adds the hook to every run's custom_hooks, once."""

from types import SimpleNamespace

import torch
from mmengine.config import Config

from vitspec.engine import IterationSeedHook
from vitspec.engine.hooks.iteration_seed import iteration_seed, with_iteration_seed


def draws(seed, iteration, before=0):
    torch.rand(before)  # whatever ran before: another stream position
    IterationSeedHook().before_train_iter(SimpleNamespace(seed=seed, iter=iteration), 0)
    return torch.rand(4)


def test_an_iterations_draws_depend_on_seed_and_iteration_only():
    assert torch.equal(draws(0, 5), draws(0, 5, before=1000))
    assert not torch.equal(draws(0, 5), draws(0, 6))
    assert not torch.equal(draws(0, 5), draws(1, 5))
    assert iteration_seed(0, 1) != iteration_seed(1, 0)  # mixed, not added
    assert 0 <= iteration_seed(2**40, 10**6) < 2**64


def test_the_runner_adds_the_hook_once():
    cfg = Config(dict(custom_hooks=[dict(type='SafeIOHook')]))
    added = with_iteration_seed(cfg)
    assert [h['type'] for h in added.custom_hooks] == ['SafeIOHook', 'IterationSeedHook']
    assert [h['type'] for h in cfg.custom_hooks] == ['SafeIOHook']  # the given config unchanged
    assert with_iteration_seed(added) is added
    assert [h['type'] for h in with_iteration_seed(Config(dict())).custom_hooks] == [
        'IterationSeedHook'
    ]
