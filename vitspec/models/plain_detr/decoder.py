"""Plain-DETR's decoder: its layers with iterative box refinement in the reparameterized form
(each layer's regression branch moves the reference boxes by a delta, `box_coding.decode_delta`)
and DINO's look-forward-twice: the boxes a layer predicts are decoded from the previous layer's
prediction before it was detached, so its loss reaches that layer's delta too; the next layer
reads them detached. Read in impiga/Plain-DETR models/global_rpe_decomp_decoder.py
(GlobalDecoder.forward, reparam branch) with models/detr.py (PlainDETRReParam.forward), which
decodes each layer's boxes again from the intermediate references."""

import torch
from torch import nn

from .box_coding import decode_delta, xyxy_to_cxcywh
from .decoder_layer import PlainDetrDecoderLayer


class PlainDetrDecoder(nn.Module):
    def __init__(self, num_layers: int = 6, pre_norm: bool = True, **layer):
        super().__init__()
        self.layers = nn.ModuleList(
            PlainDetrDecoderLayer(pre_norm=pre_norm, **layer) for _ in range(num_layers)
        )
        dims = self.layers[0].norms[0].normalized_shape[0]
        self.final_norm = nn.LayerNorm(dims) if pre_norm else nn.Identity()

    def forward(
        self,
        x,
        pos,
        boxes,
        memory,
        memory_pos,
        hw,
        reg_branches,
        max_shape,
        padding_mask=None,
        attn_mask=None,
    ):
        """Per layer (stacked on dim 0): the normed query states, the boxes each layer refined
        (cx, cy, w, h pixels), the reference boxes they were decoded from and the deltas.
        ``boxes`` are the initial references (no gradient)."""
        states, refined, references, deltas = [], [], [], []
        reference = boxes  # what this layer's output is decoded from (keeps its gradient)
        for layer, reg in zip(self.layers, reg_branches):
            x = layer(x, pos, boxes, memory, memory_pos, hw, padding_mask, attn_mask)
            state = self.final_norm(x)
            delta = reg(state)
            look_forward = xyxy_to_cxcywh(decode_delta(boxes, delta, max_shape))
            states.append(state)
            refined.append(xyxy_to_cxcywh(decode_delta(reference, delta, max_shape)))
            references.append(reference)
            deltas.append(delta)
            reference, boxes = look_forward, look_forward.detach()
        return (
            torch.stack(states),
            torch.stack(refined),
            torch.stack(references),
            torch.stack(deltas),
        )
