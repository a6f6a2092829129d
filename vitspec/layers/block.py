"""The pre-norm transformer block, built from its parts (timm names: norm1, attn, ls1, norm2,
mlp, ls2)."""

from typing import Callable, Optional, Union

import torch
from timm.layers import DropPath
from torch import nn

from vitspec.errors import ConfigError

from .layer_scale import NoLayerScale
from .plain import LayerNorm
from .token_layout import TokenLayout

Part = Union[nn.Module, Callable[[int], nn.Module]]


class Block(nn.Module):
    """Pre-norm transformer block built from its parts; names follow timm (norm1, attn, ls1,
    norm2, mlp, ls2).

    ``attn_layer``, ``mlp_layer``: a built module, or a callable ``(dim) -> module`` (e.g. a
    partial of `Attention` / `TalkingHeadAttention` and of `Mlp` / `SwiGLU`); each is called as
    ``part(x, layout)``. ``norm_layer``, ``ls_layer``: callables ``(dim) -> module``, built twice
    (before and after the attention); norms and LayerScales are called as ``part(x, layout)``
    (`LayerNorm` or a SpecializedLayerNorm; `LayerScale` or a SpecializedLayerScale, None:
    none). A specialized part gives the row groups of the layout it serves (CLS, EoMT's
    queries) their own parameters; the block itself knows no groups.

    ``skip_attn`` / ``skip_mlp``: False removes that stage's skip connection, for the ablations
    of "Always Skip Attention" (2505.01996): the stage then outputs its branch alone.
    """

    def __init__(
        self,
        dim: int,
        attn_layer: Part,
        mlp_layer: Part,
        norm_layer: Callable[[int], nn.Module] = LayerNorm,
        ls_layer: Optional[Callable[[int], nn.Module]] = None,
        drop_path: float = 0.0,
        skip_attn: bool = True,
        skip_mlp: bool = True,
    ):
        super().__init__()
        if drop_path > 0 and not (skip_attn and skip_mlp):
            raise ConfigError(
                'drop path with a skip connection removed: stochastic depth drops a residual '
                'branch, and a stage without its skip connection has no residual to keep'
            )
        self.skip_attn, self.skip_mlp = skip_attn, skip_mlp
        ls_layer = ls_layer or (lambda _: NoLayerScale())
        self.norm1 = norm_layer(dim)
        self.attn = _build(attn_layer, dim)
        self.ls1 = ls_layer(dim)
        self.drop_path1 = DropPath(drop_path) if drop_path > 0 else nn.Identity()
        self.norm2 = norm_layer(dim)
        self.mlp = _build(mlp_layer, dim)
        self.ls2 = ls_layer(dim)
        self.drop_path2 = DropPath(drop_path) if drop_path > 0 else nn.Identity()

    def forward(self, x: torch.Tensor, layout: TokenLayout = TokenLayout()) -> torch.Tensor:
        return self.mlp_stage(self.attention_stage(x, layout), layout)

    def attention_stage(self, x: torch.Tensor, layout: TokenLayout = TokenLayout()):
        """The tokens after the attention and its skip connection (the first half of forward)."""
        y = self.attn(self.norm1(x, layout), layout)
        return self._add_branch(x, y, self.ls1, self.drop_path1, self.skip_attn, layout)

    def mlp_stage(self, x: torch.Tensor, layout: TokenLayout = TokenLayout()):
        """The tokens after the MLP and its skip connection (the second half of forward)."""
        y = self.mlp(self.norm2(x, layout), layout)
        return self._add_branch(x, y, self.ls2, self.drop_path2, self.skip_mlp, layout)

    @staticmethod
    def _add_branch(x, y, ls, drop_path, skip, layout):
        """The skip connection ``x + drop_path(ls(y))``; without stochastic depth, the
        LayerScale and the sum as one step (`add_to`: a specialized one then adds no kernel)."""
        if skip and isinstance(drop_path, nn.Identity):
            return ls.add_to(x, y, layout)
        y = drop_path(ls(y, layout))
        return x + y if skip else y

    def extra_repr(self) -> str:
        removed = [n for n, on in (('attn', self.skip_attn), ('mlp', self.skip_mlp)) if not on]
        return f'skip connection removed: {", ".join(removed)}' if removed else ''


def _build(part: Part, dim: int) -> nn.Module:
    return part if isinstance(part, nn.Module) else part(dim)
