"""Each training iteration's random draws depend on the run's seed and the iteration alone, so
that a resumed run draws what the uninterrupted one drew.

mmengine seeds the generators once, when the run starts (again when it resumes), and saves no
generator state in checkpoints: a run resumed at iteration N draws its point samples (Mask2Former's
and EoMT's losses), EoMT's freed queries and drop-path masks from another stream than the
uninterrupted run did, and its weights differ (1e-3 after a few iterations of the EoMT demo).
torch's generators (CPU and CUDA) are seeded before every iteration from (seed, iteration). The
data pipeline's numpy / random draws need nothing: mmengine reseeds them when it resumes and
replays the skipped batches through the pipeline.
"""

import copy

import numpy as np
import torch
from mmengine.hooks import Hook
from mmengine.registry import HOOKS


def iteration_seed(seed: int, iteration: int) -> int:
    """A 64-bit seed mixed from the run's seed and the 0-based iteration (SeedSequence: nearby
    pairs give unrelated streams)."""
    words = np.random.SeedSequence([seed % 2**63, iteration]).generate_state(2, np.uint32)
    return int(words[0]) << 32 | int(words[1])


@HOOKS.register_module()
class IterationSeedHook(Hook):
    """Seeds torch (CPU and CUDA) before each training iteration with
    ``iteration_seed(runner.seed, runner.iter)``; runner.seed is per rank when the config's
    ``randomness.diff_rank_seed`` asks for it. CheckedRunner adds it to every run
    (``with_iteration_seed``)."""

    priority = 'VERY_HIGH'

    def before_train_iter(self, runner, batch_idx: int, data_batch=None) -> None:
        torch.manual_seed(iteration_seed(runner.seed, runner.iter))


def with_iteration_seed(cfg):
    """``cfg`` with an IterationSeedHook in ``custom_hooks`` (a copy; ``cfg`` itself when it has
    one already)."""
    hooks = list(cfg.get('custom_hooks') or [])
    name = IterationSeedHook.__name__
    if any(isinstance(h, dict) and h.get('type') in (name, IterationSeedHook) for h in hooks):
        return cfg
    cfg = copy.deepcopy(cfg)
    cfg.custom_hooks = [*hooks, dict(type=name)]
    return cfg
