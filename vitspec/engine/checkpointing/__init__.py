"""Checkpoints during a run: a Runner's checkpoint loaded strictly (through
``vitspec.checkpoints.load.load_state_dict_strict``, the loader of every model), the checkpoint a
resume continues from, no saved checkpoint with non-finite weights, and mmengine's private Runner
fields (``runner_fields.py``, the one module that reads or writes them), and a checkpoint as
plain data that a weights-only ``torch.load`` reads (``plain_data.py``). The SafeIOHook
(hooks/safe_io.py) applies the finite-weights check at every save; the CheckedRunner
(checked_runner.py) the others."""

from .finite_weights import check_finite_weights
from .resume import checkpoint_to_resume
from .strict_load import load_checkpoint_strict

__all__ = ['check_finite_weights', 'checkpoint_to_resume', 'load_checkpoint_strict']
