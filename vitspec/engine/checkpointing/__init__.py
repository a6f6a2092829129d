"""Checkpoints during a run: strict loading, the checkpoint a resume continues from, no saved
checkpoint with non-finite weights, and the Runner fields that record what was loaded. The
SafeIOHook (hooks/safe_io.py) applies the last check at every save; the CheckedRunner
(runner.py) the others."""

from .finite_weights import check_finite_weights
from .resume import checkpoint_to_resume
from .strict_load import load_checkpoint_strict

__all__ = ['check_finite_weights', 'checkpoint_to_resume', 'load_checkpoint_strict']
