"""EoMT, the encoder-only mask transformer ("Your ViT is Secretly an Image Segmentation Model",
Kerssies et al., CVPR 2025, arXiv 2503.19108; code tue-mps/eomt models/eomt.py), on SpecViT."""

from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn

from vitspec.checkpoints.filtered import FilteredCheckpoint, filter_under
from vitspec.checkpoints.layouts.eomt import renamed_query_copies
from vitspec.errors import ConfigError
from vitspec.layers import Attention, TokenLayout, center_pad_to_multiple
from vitspec.layers.specialized import init_group_from_shared

from ..backbones.options import QUERY_SPECIALIZE
from .mask_module import EoMTHead
from .query_block import QUERY, query_block_parts


class EoMTNetwork(nn.Module):
    """Learned queries join the token sequence of a SpecViT for its last ``num_blocks`` blocks;
    a mask module (`EoMTHead`) predicts per-query mask and class logits from the final-normed
    tokens before each of those blocks and after the last.

    Tokens of the query blocks are laid out ``[CLS | registers | queries | patches]``: upstream
    prepends the queries (``[queries | CLS | registers | patches]``), which computes the same,
    since attention is permutation-equivariant over its keys and every other part acts per
    token; here the CLS group stays first (CLS specialization) and the patches last (rope,
    relative position bias). Rope leaves the queries unrotated (prefix rows).

    Masked attention: in training mode, the mask logits predicted before query block ``j``,
    bilinearly resized to the patch grid, give the attention mask queries -> patches (a query
    attends to the patches where its logit is > 0; every other pair attends). Each query keeps
    its mask with probability ``attn_mask_probs[j]`` (a buffer, 1: all masked, 0: none),
    drawn per image and query, as upstream's ``_disable_attn_mask``; a training hook anneals
    the probabilities. In eval mode, or where the probability is 0, no mask is applied
    (upstream's validation during training keeps masking at the current probabilities).

    ``query_specialize``: True or dict(norm, qkv, layer_scale): the query tokens get their own
    parameters in those parts of the query blocks (the row group 'query' of the specialized
    layers, `query_block`), initialized from the shared ones. Every SpecViT technique composes
    except class-attention layers (CaiT), windowed or talking-heads query blocks and BEiT's
    table bias in them, which are refused.

    ``forward(img)``: the normalized image (B, 3, H, W), zero-padded to a multiple of the patch
    size as SpecViT pads it -> (mask logits per layer, class logits per layer), ``num_blocks +
    1`` entries each: (B, Q, s*h, s*w) with s the head's upscaling (4 for patch 16) and (B, Q,
    num_classes + 1).
    """

    def __init__(
        self,
        backbone: nn.Module,
        num_classes: int,
        num_queries: int = 100,
        num_blocks: int = 4,
        query_specialize: Optional[dict] = None,
    ):
        super().__init__()
        if getattr(backbone, 'class_attn', False):
            raise ConfigError('EoMT needs the CLS token in the blocks: no class-attention layers')
        if not 1 <= num_blocks <= len(backbone.blocks):
            raise ConfigError(
                f'num_blocks must be in [1, {len(backbone.blocks)}] (the backbone has '
                f'{len(backbone.blocks)} blocks), got {num_blocks}'
            )
        self.backbone = backbone
        self.num_classes = num_classes
        self.num_queries = num_queries
        self.num_blocks = num_blocks
        self.first_query_block = len(backbone.blocks) - num_blocks
        for i in range(self.first_query_block, len(backbone.blocks)):
            _check_query_block(backbone.blocks[i], i)
        dim = backbone.embed_dims
        self.query_embed = nn.Embedding(num_queries, dim)
        self.head = EoMTHead(dim, num_classes, backbone.patch_size)
        self.register_buffer('attn_mask_probs', torch.ones(num_blocks))
        self.query_specialize = QUERY_SPECIALIZE.merge(query_specialize, 'EoMTNetwork')
        if self.query_specialize:
            for block in self.query_blocks:
                query_block_parts(block, **self.query_specialize)

    @property
    def query_blocks(self):
        return self.backbone.blocks[self.first_query_block :]

    def init_weights(self):
        """The backbone's init (random, or its pretrained checkpoint, which fills absent query
        copies from the shared parts); after a random init the query copies start as the
        shared parts. The query embedding and head keep torch's init, as upstream's."""
        self.backbone.init_weights()
        cfg = self.backbone.init_cfg
        if self.query_specialize and not (cfg and cfg.get('type') == 'Pretrained'):
            init_group_from_shared(self.backbone, QUERY)

    def filter_checkpoint(self, state_dict: dict) -> FilteredCheckpoint:
        """A full EoMTNetwork state dict adapted to this network: the backbone's part through
        the backbone's filter (position table resampled, absent query / CLS copies filled);
        query copies under their former names (``blocks.9.query_norm1.weight``) renamed."""
        return filter_under(
            'backbone.', self.backbone.filter_checkpoint, renamed_query_copies(state_dict)
        )

    def forward(self, img: torch.Tensor, last_only: bool = False):
        """``last_only`` (eval mode): skip the predictions before the query blocks, which only
        the masks and the deep supervision of training use (ViT-L/16 at 512x512: 189 of 978
        GFLOPs, counted by torch's FlopCounterMode); the lists then hold the final one."""
        if last_only and self.training:
            raise ValueError('last_only is for inference: training needs every layer (eval())')
        bb = self.backbone
        x, layout = bb.tokens(center_pad_to_multiple(img, bb.patch_size))
        x = bb.run_blocks(x, layout, 0, self.first_query_block)
        num_prefix = bb.num_prefix_tokens
        queries = self.query_embed.weight.expand(x.shape[0], -1, -1)
        x = torch.cat([x[:, :num_prefix], queries, x[:, num_prefix:]], dim=1)
        layout = layout.with_queries(self.num_queries)
        masks, classes = [], []
        for i in range(self.first_query_block, len(bb.blocks)):
            if not last_only:
                mask_logits, class_logits = self._predict(bb.norm(x), layout)
                masks.append(mask_logits)
                classes.append(class_logits)
                if self.training:  # eval: no mask, and no graph break under torch.compile
                    j = i - self.first_query_block
                    mask = self._attn_mask(mask_logits, j, x, layout)
                    layout = layout._replace(attn_mask=mask)
            x = bb.run_blocks(x, layout, i, i + 1)
        mask_logits, class_logits = self._predict(bb.norm(x), layout)
        masks.append(mask_logits)
        classes.append(class_logits)
        return masks, classes

    def _predict(self, x: torch.Tensor, layout: TokenLayout):
        rows = layout.query_slice(x.shape[1])
        patches = x[:, rows.stop :].transpose(1, 2).reshape(x.shape[0], -1, *layout.hw)
        return self.head(x[:, rows], patches)

    @torch.compiler.disable  # data-dependent (the probability, random draws), as upstream's
    def _attn_mask(self, mask_logits: torch.Tensor, j: int, x: torch.Tensor, layout):
        """Bool (B, N, N), True = may attend, or None (probability 0)."""
        prob = self.attn_mask_probs[j]
        if prob <= 0:
            return None
        B, N = x.shape[:2]
        rows = layout.query_slice(N)
        on_patches = F.interpolate(mask_logits, layout.hw, mode='bilinear').flatten(2) > 0
        mask = torch.ones(B, N, N, dtype=torch.bool, device=x.device)
        if prob < 1:  # a query whose draw is above prob sees all patches (upstream's rule)
            freed = torch.rand(B, self.num_queries, device=x.device) > prob
            on_patches = on_patches | freed[:, :, None]
        mask[:, rows, rows.stop :] = on_patches
        return mask


def _check_query_block(block: nn.Module, index: int) -> None:
    attn = getattr(block, 'attn', None)
    if type(attn) is not Attention:
        raise ConfigError(
            f'EoMT query block {index} must use the plain joint Attention, got '
            f'{type(attn).__name__} (talking heads have no masked form)'
        )
    if attn.window_size:
        raise ConfigError(
            f'EoMT query block {index} is windowed: queries attend globally; list the last '
            f'num_blocks blocks in global_attn_indexes'
        )
    if attn.rel_pos_bias == 'table':
        raise ConfigError(
            f"EoMT query block {index} has rel_pos_bias='table' (BEiT), which has no entries "
            'for query tokens'
        )
