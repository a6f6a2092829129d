"""SpecViT: one plain-ViT backbone whose options switch the backbone techniques on."""
from typing import Sequence, Union

import torch
from mmengine.logging import print_log
from mmengine.model import BaseModule
from mmengine.model.weight_init import trunc_normal_
from torch import nn
from torch.utils.checkpoint import checkpoint

from vitspec.layers import Block, PatchEmbed, resample_pos_embed
from vitspec.layers.block import LayerNorm
from ..registry import register_backbone


@register_backbone
class SpecViT(BaseModule):
    """Pre-norm Vision Transformer with timm parameter names, for dense prediction.

    Tokens are laid out ``[CLS | registers | patches]``. The learned position embedding covers
    the patch grid of ``img_size`` (plus the CLS slot when ``pos_embed_cls``) and is resampled
    to every input size that is a multiple of ``patch_size``. Returns a tuple of NCHW
    patch-token maps, one per ``out_indices`` entry (0-based block indices).
    """

    def __init__(self,
                 img_size: Union[int, Sequence[int]] = 224,
                 patch_size: int = 16,
                 in_channels: int = 3,
                 embed_dims: int = 768,
                 num_layers: int = 12,
                 num_heads: int = 12,
                 mlp_ratio: float = 4.0,
                 qkv_bias: bool = True,
                 num_register_tokens: int = 0,
                 pos_embed_cls: bool = True,
                 pos_embed_interp: str = 'timm',
                 layer_scale_init: float = None,
                 out_indices: Union[int, Sequence[int]] = -1,
                 final_norm: bool = True,
                 drop_path_rate: float = 0.0,
                 with_cp: bool = False,
                 frozen_stages: int = -1,
                 init_cfg=None):
        super().__init__(init_cfg=init_cfg)
        img_size = (img_size, img_size) if isinstance(img_size, int) else tuple(img_size)
        self.patch_size = patch_size
        self.embed_dims = embed_dims
        self.num_layers = num_layers
        self.grid_size = (img_size[0] // patch_size, img_size[1] // patch_size)
        self.num_register_tokens = num_register_tokens
        self.num_prefix_tokens = 1 + num_register_tokens
        self.pos_embed_cls = pos_embed_cls
        self.pos_embed_interp = pos_embed_interp
        self.final_norm = final_norm
        self.with_cp = with_cp
        self.frozen_stages = frozen_stages
        out_indices = [out_indices] if isinstance(out_indices, int) else list(out_indices)
        self.out_indices = [i % num_layers for i in out_indices]

        self.patch_embed = PatchEmbed(patch_size, in_channels, embed_dims)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dims))
        self.reg_token = (nn.Parameter(torch.zeros(1, num_register_tokens, embed_dims))
                          if num_register_tokens else None)
        num_pos = self.grid_size[0] * self.grid_size[1] + int(pos_embed_cls)
        self.pos_embed = nn.Parameter(torch.zeros(1, num_pos, embed_dims))
        dpr = torch.linspace(0, drop_path_rate, num_layers).tolist()
        self.blocks = nn.ModuleList([
            Block(embed_dims, num_heads, int(embed_dims * mlp_ratio), qkv_bias=qkv_bias,
                  layer_scale_init=layer_scale_init, drop_path=dpr[i])
            for i in range(num_layers)
        ])
        self.norm = LayerNorm(embed_dims)

    def init_weights(self):
        if self.init_cfg is not None and self.init_cfg.get('type') == 'Pretrained':
            from vitspec.checkpoints import load_pretrained
            load_pretrained(self, self.init_cfg['checkpoint'])
            self._is_init = True
            return
        trunc_normal_(self.pos_embed, std=0.02)
        nn.init.normal_(self.cls_token, std=1e-6)
        if self.reg_token is not None:
            nn.init.normal_(self.reg_token, std=1e-6)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
        super().init_weights()

    def _embed(self, x: torch.Tensor):
        x, hw = self.patch_embed(x)
        num_prefix = int(self.pos_embed_cls)
        pos = resample_pos_embed(self.pos_embed, hw, self.grid_size, num_prefix,
                                 self.pos_embed_interp)
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        if self.pos_embed_cls:
            cls = cls + pos[:, :1]
        tokens = [cls, x + pos[:, num_prefix:]]
        if self.reg_token is not None:  # registers carry no position embedding
            tokens.insert(1, self.reg_token.expand(x.shape[0], -1, -1))
        return torch.cat(tokens, dim=1), hw

    def forward(self, x: torch.Tensor):
        B = x.shape[0]
        x, (h, w) = self._embed(x)
        outs = []
        for i, blk in enumerate(self.blocks):
            if self.with_cp and x.requires_grad:
                x = checkpoint(blk, x, use_reentrant=False)
            else:
                x = blk(x)
            if i in self.out_indices:
                y = self.norm(x) if self.final_norm else x
                y = y[:, self.num_prefix_tokens:]
                outs.append(y.transpose(1, 2).reshape(B, -1, h, w))
        return tuple(outs)

    def _freeze_stages(self):
        if self.frozen_stages < 0:
            return
        frozen = [self.patch_embed, *self.blocks[:self.frozen_stages]]
        if self.frozen_stages >= self.num_layers:
            frozen.append(self.norm)
        for m in frozen:
            m.eval()
        params = [p for m in frozen for p in m.parameters()]
        params += [p for p in (self.cls_token, self.reg_token, self.pos_embed) if p is not None]
        for p in params:
            p.requires_grad = False

    def train(self, mode: bool = True):
        super().train(mode)
        self._freeze_stages()
        return self
