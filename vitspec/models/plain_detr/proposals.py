"""Two-stage query selection of Plain-DETR: the encoder memory, projected to several strides
(a pyramid of transposed / strided 2x2 convolutions, LayerNorm and GELU between them), scores
every cell as a box proposal of a fixed size (``min_size`` x 2^level pixels, centred on the
cell); the top-scoring ones, refined by their deltas, are the decoder's first reference boxes.
Cells on padding or whose proposal leaves the image (1%..99%) are out: their memory is zero and
their proposal the largest box. Read in impiga/Plain-DETR models/transformer.py
(TransformerReParam.gen_encoder_output_proposals, expand_encoder_output, get_proposal_pos_embed,
the enc_output_proj pyramid in Transformer.__init__), unchanged in facebookresearch/dinov3."""

import math

import torch
import torch.nn.functional as F
from timm.layers import LayerNorm2d
from torch import nn


def resample_block(dims: int, in_stride: int, out_stride: int) -> nn.Module:
    """From ``in_stride`` to ``out_stride`` by 2x2 convolutions of stride 2 (down) or
    transposed ones (up); LayerNorm (eps 1e-5, nn.LayerNorm's) and GELU between two of them."""
    if out_stride == in_stride:
        return nn.Identity()
    conv = nn.Conv2d if out_stride > in_stride else nn.ConvTranspose2d
    steps = int(math.log2(max(out_stride, in_stride) / min(out_stride, in_stride)))
    layers = []
    for _ in range(steps - 1):
        layers += [conv(dims, dims, 2, stride=2), LayerNorm2d(dims, eps=1e-5), nn.GELU()]
    layers.append(conv(dims, dims, 2, stride=2))
    return nn.Sequential(*layers)


def sine_box_embedding(boxes: torch.Tensor, dims: int) -> torch.Tensor:
    """(B, Q, 4 * dims // 2) sine / cosine embedding of each box coordinate (the source's
    get_proposal_pos_embed: temperature 10000, coordinates times 2 pi)."""
    num_feats = dims // 2
    dim_t = torch.arange(num_feats, dtype=torch.float32, device=boxes.device)
    dim_t = 10000 ** (2 * (dim_t // 2) / num_feats)
    pos = boxes[..., None] * (2 * math.pi) / dim_t
    return torch.stack((pos[..., 0::2].sin(), pos[..., 1::2].cos()), dim=4).flatten(2)


class ProposalGenerator(nn.Module):
    """The memory at ``out_strides`` (from ``in_stride``) with one fixed-size proposal per cell."""

    def __init__(
        self, dims: int, in_stride: int = 16, out_strides=(8, 16, 32, 64), min_size: float = 50
    ):
        super().__init__()
        self.out_strides = list(out_strides)
        self.min_size = min_size
        self.levels = nn.ModuleList(resample_block(dims, in_stride, s) for s in self.out_strides)
        self.memory_proj = nn.Linear(dims, dims)
        self.memory_norm = nn.LayerNorm(dims)

    def expand(self, memory, padding_mask, hw):
        B, _, C = memory.shape
        fmap = memory.transpose(1, 2).reshape(B, C, *hw)
        mask = padding_mask.view(B, *hw)[None].float()
        maps, masks, shapes = [], [], []
        for level in self.levels:
            m = level(fmap)
            maps.append(m.flatten(2).transpose(1, 2))
            masks.append(F.interpolate(mask, size=m.shape[-2:]).to(torch.bool)[0].flatten(1))
            shapes.append(tuple(m.shape[-2:]))
        return torch.cat(maps, 1), torch.cat(masks, 1), shapes

    def forward(self, memory, padding_mask, hw):
        """(projected memory (B, N, C), proposals (B, N, 4) cx, cy, w, h pixels, the valid
        (heights, widths) in pixels, each (B, 1, 1)) over the N cells of all levels."""
        memory, padding_mask, shapes = self.expand(memory, padding_mask, hw)
        B = memory.shape[0]
        proposals = []
        for lvl, ((h, w), stride) in enumerate(zip(shapes, self.out_strides)):
            ys, xs = torch.meshgrid(
                torch.arange(h, dtype=torch.float32, device=memory.device),
                torch.arange(w, dtype=torch.float32, device=memory.device),
                indexing='ij',
            )
            centre = (torch.stack([xs, ys], -1) + 0.5) * stride
            size = torch.full_like(centre, self.min_size * 2.0**lvl)
            proposals.append(torch.cat([centre, size], -1).view(1, -1, 4).expand(B, -1, -1))
        proposals = torch.cat(proposals, 1)
        (h, w), stride = shapes[0], self.out_strides[0]
        first = padding_mask[:, : h * w].view(B, h, w)
        valid_h = (~first[:, :, 0]).sum(1, keepdim=True) * stride
        valid_w = (~first[:, 0, :]).sum(1, keepdim=True) * stride
        image = torch.cat([valid_w, valid_h, valid_w, valid_h], -1)[:, None]
        inside = ((proposals > 0.01 * image) & (proposals < 0.99 * image)).all(-1, keepdim=True)
        out = padding_mask[..., None] | ~inside
        proposals = proposals.masked_fill(out, max(h, w) * stride)
        memory = self.memory_norm(self.memory_proj(memory.masked_fill(out, 0.0)))
        return memory, proposals, (valid_h[:, None], valid_w[:, None])
