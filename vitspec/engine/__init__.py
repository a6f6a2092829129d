from .safe_load import CheckpointError, safe_torch_load

__all__ = ['CheckpointError', 'safe_torch_load']
