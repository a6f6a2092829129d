"""One Plain-DETR decoder layer: self-attention among the queries, BoxRPB cross-attention to the
single-scale memory, FFN; pre-norm (DINOv3, Plain-DETR's recipe) or post-norm. ``norms`` are in
that order (self, cross, FFN). Read in impiga/Plain-DETR models/global_rpe_decomp_decoder.py
(GlobalDecoderLayer, forward_pre / forward_post). mmdet's DETR decoder layers are post-norm with
the cross-attention second and no box input, hence ours; the FFN is mmcv's."""

from mmcv.cnn.bricks.transformer import FFN
from torch import nn

from .box_rpb_attention import BoxRPBCrossAttention


class PlainDetrDecoderLayer(nn.Module):
    def __init__(
        self,
        dims: int = 256,
        num_heads: int = 8,
        ffn_dims: int = 2048,
        dropout: float = 0.0,
        pre_norm: bool = True,
        rpb_hidden: int = 512,
        stride: int = 16,
    ):
        super().__init__()
        self.pre_norm = pre_norm
        self.self_attn = nn.MultiheadAttention(dims, num_heads, dropout=dropout, batch_first=True)
        self.cross_attn = BoxRPBCrossAttention(dims, num_heads, rpb_hidden, stride)
        self.ffn = FFN(dims, ffn_dims, ffn_drop=dropout, add_identity=False)
        self.norms = nn.ModuleList(nn.LayerNorm(dims) for _ in range(3))
        self.dropouts = nn.ModuleList(
            nn.Dropout(dropout) for _ in range(2)
        )  # mmcv's FFN has its own

    def _self_attn(self, x, pos, attn_mask):
        q = x + pos
        return self.self_attn(q, q, x, attn_mask=attn_mask, need_weights=False)[0]

    def _cross_attn(self, x, pos, boxes, memory, memory_pos, hw, padding_mask):
        return self.cross_attn(x + pos, boxes, memory + memory_pos, memory, hw, padding_mask)

    def forward(self, x, pos, boxes, memory, memory_pos, hw, padding_mask=None, attn_mask=None):
        """``x``, ``pos``: (B, Q, C) content and position of the queries; ``boxes``: (B, Q, 4)
        their reference boxes (cx, cy, w, h pixels); ``memory``, ``memory_pos``: (B, h*w, C)."""
        norm_sa, norm_ca, norm_ffn = self.norms
        drop_sa, drop_ca = self.dropouts
        if self.pre_norm:
            x = x + drop_sa(self._self_attn(norm_sa(x), pos, attn_mask))
            x = x + drop_ca(
                self._cross_attn(norm_ca(x), pos, boxes, memory, memory_pos, hw, padding_mask)
            )
            return x + self.ffn(norm_ffn(x))
        x = norm_sa(x + drop_sa(self._self_attn(x, pos, attn_mask)))
        x = norm_ca(
            x + drop_ca(self._cross_attn(x, pos, boxes, memory, memory_pos, hw, padding_mask))
        )
        return norm_ffn(x + self.ffn(x))
