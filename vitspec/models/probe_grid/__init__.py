"""Probe grids: K frozen-backbone probes, each with its own settings, trained on the same batches
in one run (the config side is vitspec/config/probe_grid.py). Importing this package registers
ProbeGrid in mmseg's MODELS."""

from .model import ProbeGrid, trained_parts
from .random_draws import reinitialize

__all__ = ['ProbeGrid', 'reinitialize', 'trained_parts']
