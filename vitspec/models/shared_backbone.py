"""One backbone run serving several heads (multi-head inference, probe grids).

``SharedBackbone`` holds the one backbone and remembers its outputs for the inputs it was last
given: every head given the same tensor -- the same object, or a view of the same memory with
the same shape and strides, as the windows of a sliding-window pass are -- gets them without a
second run. An entry keeps its input alive, so that no other tensor can take its memory
meanwhile. ``BackboneView`` takes the place of a head's own backbone and hands it, of the shared
outputs, what its own backbone would have returned: for SpecViT, the entries of its
``out_indices`` (the shared run computes the union of the heads') and the CLS token only if it
asked for it.
"""

from typing import Optional, Sequence

import torch
from mmseg.registry import MODELS
from torch import nn


def _memory_key(tensor: torch.Tensor) -> tuple:
    """Equal for the same view of the same, unchanged memory (``_version`` counts writes)."""
    return (
        tensor.device,
        tensor.dtype,
        tensor.data_ptr(),
        tensor.storage_offset(),
        tuple(tensor.shape),
        tensor.stride(),
        tensor._version,
    )


class SharedBackbone(nn.Module):
    """``keep``: how many inputs' outputs are remembered (the windows of one image: one per
    window); ``release()`` forgets them all."""

    def __init__(
        self, backbone: nn.Module, out_indices: Optional[Sequence[int]] = None, keep: int = 1
    ):
        super().__init__()
        self.backbone = backbone
        self.out_indices = None if out_indices is None else sorted(set(out_indices))
        self.keep = keep
        self._outputs = {}

    def forward(self, inputs: torch.Tensor):
        key = _memory_key(inputs)
        if key not in self._outputs:
            while len(self._outputs) >= self.keep:
                self._outputs.pop(next(iter(self._outputs)))
            self._outputs[key] = (inputs, self.backbone(inputs))
        return self._outputs[key][1]

    def release(self) -> None:
        """Forget the remembered outputs (they hold a batch's features)."""
        self._outputs = {}


@MODELS.register_module()
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
        # a plain attribute: the shared module is registered once, by its owner
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

    def get_layer_depth(self, name: str, prefix: str = ''):
        """The shared backbone's (layer-wise lr decay asks a head's backbone; a view holds no
        parameters of its own, so it is asked only for names it does not have)."""
        return self.shared.backbone.get_layer_depth(name, prefix)
