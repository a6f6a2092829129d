import torch
import torch.nn.functional as F
from torch import nn

from .layer_scaled_linear import layer_scaled_linear
from .specialized import SpecializedLinear
from .window_attention import windowed_sdpa


class Attention(nn.Module):
    """Multi-head self-attention over all tokens with fused SDPA (timm parameter names).

    ``qkv`` may be a SpecializedLinear (separate CLS weights); the attention itself is one
    joint attention over [CLS, registers, patches], or, with ``window_size``, ViTDet's local
    attention within windows of the patch grid (``forward(..., hw=(h, w))``). The block's
    LayerScale, if given, is fused into ``proj`` (see `layer_scaled_linear`).
    """

    def __init__(self, dim: int, num_heads: int, qkv_bias: bool = True, head_dim: int = None,
                 attn_drop: float = 0.0, proj_drop: float = 0.0, specialized_qkv: bool = False,
                 lora_rank: int = None, window_size: int = 0):
        super().__init__()
        self.window_size = window_size
        self.num_heads = num_heads
        self.head_dim = head_dim or dim // num_heads
        inner = self.num_heads * self.head_dim
        self.qkv = (SpecializedLinear(dim, 3 * inner, bias=qkv_bias, lora_rank=lora_rank)
                    if specialized_qkv else nn.Linear(dim, 3 * inner, bias=qkv_bias))
        self.attn_drop = attn_drop
        self.proj = nn.Linear(inner, dim)
        self.proj_drop = nn.Dropout(proj_drop)

    def _qkv(self, x: torch.Tensor, num_cls: int):
        B, N, _ = x.shape
        qkv = self.qkv(x, num_cls) if isinstance(self.qkv, SpecializedLinear) else self.qkv(x)
        qkv = qkv.reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        return qkv.unbind(0)

    def forward(self, x: torch.Tensor, num_cls: int = 1, hw=None,
                layer_scale: nn.Module = None) -> torch.Tensor:
        B, N, _ = x.shape
        q, k, v = self._qkv(x, num_cls)
        if self.window_size:
            if hw is None:
                raise ValueError('windowed attention needs the patch grid: forward(x, hw=(h, w))')
            x = windowed_sdpa(q, k, v, hw, self.window_size)
        else:
            x = F.scaled_dot_product_attention(
                q, k, v, dropout_p=self.attn_drop if self.training else 0.0)
        return self._project(x.transpose(1, 2).reshape(B, N, -1), num_cls, layer_scale)

    def _project(self, x: torch.Tensor, num_cls: int, layer_scale) -> torch.Tensor:
        return self.proj_drop(layer_scaled_linear(x, self.proj, layer_scale, num_cls))
