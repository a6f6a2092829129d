"""Importing this package registers its modules."""

from .gradient_loss import GradientLoss  # noqa: F401
from .sig_loss import SigLoss  # noqa: F401
