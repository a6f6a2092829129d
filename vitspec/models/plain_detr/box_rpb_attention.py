"""Global cross-attention with box-to-pixel relative position bias (BoxRPB, Plain-DETR §3.2).

Each query's reference box (x1, y1, x2, y2 in pixels) gives, per feature-map column, the two
offsets (x1 - px, x2 - px) and, per row, (y1 - py, y2 - py) from the cell centres; a 2-layer MLP
per axis maps them to one bias per head, and the bias of cell (row, col) is the sum of its row's
and its column's (the 'decomposed' form, O(h + w) MLP calls instead of O(h * w)). Padded cells
get -100, not -inf, as the source does. Read in impiga/Plain-DETR
models/global_rpe_decomp_decoder.py (GlobalCrossAttention) and its copy in facebookresearch/dinov3
dinov3/eval/detection/models/global_rpe_decomp_decoder.py (which runs it through SDPA).
"""

import torch
import torch.nn.functional as F
from torch import nn

PADDING_BIAS = -100.0


def rpb_mlp(hidden: int, heads: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(2, hidden), nn.ReLU(inplace=True), nn.Linear(hidden, heads, bias=False)
    )


class BoxRPBCrossAttention(nn.Module):
    """Queries (B, Q, C) attend over one (h, w) map of keys / values (B, h*w, C)."""

    def __init__(self, dims: int, num_heads: int, rpb_hidden: int = 512, stride: int = 16):
        super().__init__()
        self.num_heads = num_heads
        self.stride = stride
        self.rpb_x = rpb_mlp(rpb_hidden, num_heads)
        self.rpb_y = rpb_mlp(rpb_hidden, num_heads)
        self.q = nn.Linear(dims, dims)
        self.k = nn.Linear(dims, dims)
        self.v = nn.Linear(dims, dims)
        self.proj = nn.Linear(dims, dims)

    def position_bias(self, boxes: torch.Tensor, hw) -> torch.Tensor:
        """(B, heads, Q, h*w) from (B, Q, 4) cx, cy, w, h pixel boxes."""
        h, w = hw
        corners = torch.cat(
            [boxes[..., :2] - boxes[..., 2:] / 2, boxes[..., :2] + boxes[..., 2:] / 2], -1
        )
        corners = corners[:, :, None]  # B, Q, 1, 4
        centre = lambda n: torch.arange(n, dtype=torch.float32, device=boxes.device) + 0.5  # noqa: E731
        dx = corners[..., 0::2] - (centre(w) * self.stride)[:, None]  # B, Q, w, 2
        dy = corners[..., 1::2] - (centre(h) * self.stride)[:, None]  # B, Q, h, 2
        bias = self.rpb_x(dx)[:, :, None] + self.rpb_y(dy)[:, :, :, None]  # B, Q, h, w, heads
        return bias.flatten(2, 3).permute(0, 3, 1, 2)

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        B, N, C = x.shape
        return x.reshape(B, N, self.num_heads, C // self.num_heads).transpose(1, 2)

    def forward(self, query, boxes, key, value, hw, padding_mask=None):
        bias = self.position_bias(boxes, hw)
        if padding_mask is not None:
            bias = bias + padding_mask[:, None, None].to(bias.dtype) * PADDING_BIAS
        q, k, v = self._heads(self.q(query)), self._heads(self.k(key)), self._heads(self.v(value))
        x = F.scaled_dot_product_attention(q, k, v, attn_mask=bias.to(q.dtype))
        B, _, Q, _ = x.shape
        return self.proj(x.transpose(1, 2).reshape(B, Q, -1))
