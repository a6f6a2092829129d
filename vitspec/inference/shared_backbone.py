"""One backbone run serving several heads (multi_head.py).

``SharedBackbone`` holds the one backbone and remembers its outputs for the last input tensor:
every head given that same tensor object gets them without a second run. ``BackboneView`` takes
the place of a head's own backbone and hands it, of the shared outputs, what its own backbone
would have returned: for SpecViT, the entries of its ``out_indices`` (the shared run computes
the union of the heads') and the CLS token only if it asked for it.
"""

from typing import Optional, Sequence

import torch
from torch import nn


class SharedBackbone(nn.Module):
    def __init__(self, backbone: nn.Module, out_indices: Optional[Sequence[int]] = None):
        super().__init__()
        self.backbone = backbone
        self.out_indices = None if out_indices is None else sorted(set(out_indices))
        self._input: Optional[torch.Tensor] = None
        self._outputs = None

    def forward(self, inputs: torch.Tensor):
        if inputs is not self._input:
            self._outputs = self.backbone(inputs)
            self._input = inputs
        return self._outputs

    def release(self) -> None:
        """Forget the last outputs (they hold a batch's features)."""
        self._input = self._outputs = None


class BackboneView(nn.Module):
    """What a head's own backbone returned, taken from ``shared``'s outputs.

    ``out_indices``: the head's own (sorted, unique; its backbone returned one entry per index
    in that order), None to pass every output on; ``cls``: whether its entries were
    ``(map, cls)`` pairs.
    """

    def __init__(
        self, shared: SharedBackbone, out_indices: Optional[Sequence[int]] = None, cls=None
    ):
        super().__init__()
        # a plain attribute: the shared module is registered once, in the multi-head model
        self.__dict__['shared'] = shared
        self.out_indices = None if out_indices is None else sorted(set(out_indices))
        self.cls = cls

    def forward(self, inputs: torch.Tensor):
        outputs = self.shared(inputs)
        if self.out_indices is None:
            return outputs
        union = self.shared.out_indices
        picked = [outputs[union.index(i)] for i in self.out_indices]
        if not self.cls:
            picked = [entry[0] if isinstance(entry, tuple) else entry for entry in picked]
        return tuple(picked)
