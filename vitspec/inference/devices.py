"""The device a tool runs a model on, checked before anything loads."""

from typing import Optional

import torch

from vitspec.errors import ConfigError

KNOWN = 'cpu, cuda or cuda:N'


def checked_device(name: Optional[str]) -> str:
    """``name`` as torch names it (default: cuda where there is a GPU, else cpu); ConfigError
    for a name torch does not know (``gpu``) or a CUDA device this machine does not have."""
    if name is None:
        return 'cuda' if torch.cuda.is_available() else 'cpu'
    try:
        device = torch.device(name)
    except (RuntimeError, ValueError):
        raise ConfigError(f'--device {name}: not a device name; give {KNOWN}') from None
    if device.type == 'cuda':
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if count == 0:
            raise ConfigError(f'--device {name}: this machine has no CUDA device; use --device cpu')
        if device.index is not None and device.index >= count:
            raise ConfigError(f'--device {name}: this machine has {count} CUDA device(s)')
    elif device.type != 'cpu':
        raise ConfigError(f'--device {name}: vitspec runs on {KNOWN}')
    return name
