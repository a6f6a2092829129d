"""The Plain-DETR transformer on one feature map: input projection (1x1 conv + GroupNorm 32),
sine position + level embedding, an optional DETR encoder (post-norm; mmdet's), two-stage
proposals with mixed query selection (positions from the selected boxes, contents learned),
the BoxRPB decoder with box refinement, and one classification / regression branch per decoder
layer plus one for the proposals. Queries are one-to-one (``num_queries``) then one-to-many
(``num_queries_one2many``, training only, hybrid matching: the groups do not attend to each
other). Read in impiga/Plain-DETR models/detr.py (PlainDETR, PlainDETRReParam),
models/transformer.py (Transformer.forward) and, for the encoder DINOv3 adds, facebookresearch/
dinov3 dinov3/eval/detection/models/transformer.py and transformer_encoder.py."""

import math

import torch
from mmdet.models.layers import DetrTransformerEncoder, SinePositionalEncoding
from torch import nn

from vitspec.errors import InputShapeError

from .box_coding import decode_delta, xyxy_to_cxcywh
from .decoder import PlainDetrDecoder
from .proposals import ProposalGenerator, sine_box_embedding


def box_mlp(dims: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Linear(dims, dims), nn.ReLU(), nn.Linear(dims, dims), nn.ReLU(), nn.Linear(dims, 4)
    )


def encoder_cfg(num_layers, dims, num_heads, ffn_dims, dropout) -> dict:
    """mmdet's DETR encoder layer as DINOv3's TransformerEncoderLayer: no attention dropout,
    ``dropout`` on both residual branches and inside the FFN, ReLU, post-norm."""
    return dict(
        num_layers=num_layers,
        layer_cfg=dict(
            self_attn_cfg=dict(
                embed_dims=dims,
                num_heads=num_heads,
                attn_drop=0.0,
                proj_drop=dropout,
                batch_first=True,
            ),
            ffn_cfg=dict(
                embed_dims=dims,
                feedforward_channels=ffn_dims,
                num_fcs=2,
                ffn_drop=dropout,
                act_cfg=dict(type='ReLU', inplace=True),
            ),
        ),
    )


class PlainDetrHead(nn.Module):
    def __init__(
        self,
        in_channels: int,
        num_classes: int = 80,
        dims: int = 256,
        num_heads: int = 8,
        ffn_dims: int = 2048,
        dropout: float = 0.0,
        pre_norm: bool = True,
        num_decoder_layers: int = 6,
        num_encoder_layers: int = 0,
        encoder_ffn_dims: int = 2048,
        encoder_dropout: float = 0.1,
        num_queries: int = 300,
        num_queries_one2many: int = 1500,
        rpb_hidden: int = 512,
        feature_stride: int = 16,
        proposal_strides=(8, 16, 32, 64),
        proposal_min_size: float = 50,
    ):
        super().__init__()
        self.dims = dims
        self.num_queries = num_queries
        self.num_queries_one2many = num_queries_one2many
        self.input_proj = nn.Sequential(nn.Conv2d(in_channels, dims, 1), nn.GroupNorm(32, dims))
        self.positional_encoding = SinePositionalEncoding(dims // 2, normalize=True, offset=-0.5)
        self.level_embed = nn.Parameter(torch.zeros(1, dims))
        self.encoder = (
            DetrTransformerEncoder(
                **encoder_cfg(
                    num_encoder_layers, dims, num_heads, encoder_ffn_dims, encoder_dropout
                )
            )
            if num_encoder_layers
            else None
        )
        self.proposals = ProposalGenerator(
            dims, feature_stride, proposal_strides, proposal_min_size
        )
        self.query_pos_proj = nn.Linear(2 * dims, 2 * dims)
        self.query_pos_norm = nn.LayerNorm(2 * dims)
        self.query_embed = nn.Embedding(num_queries + num_queries_one2many, dims)
        self.decoder = PlainDetrDecoder(
            num_decoder_layers,
            pre_norm,
            dims=dims,
            num_heads=num_heads,
            ffn_dims=ffn_dims,
            dropout=dropout,
            rpb_hidden=rpb_hidden,
            stride=feature_stride,
        )
        self.cls_branches = nn.ModuleList(
            nn.Linear(dims, num_classes) for _ in range(num_decoder_layers + 1)
        )
        self.reg_branches = nn.ModuleList(box_mlp(dims) for _ in range(num_decoder_layers + 1))
        self.init_weights()

    def init_weights(self):
        """The source's: xavier for every matrix of the transformer, the decoder's linears
        trunc-normal 0.02 (Swin's rule), normal level embedding, focal prior 0.01 on the class
        biases, zero last regression layers, xavier input projection."""
        for m in (self.encoder, self.proposals, self.query_pos_proj):
            for p in m.parameters() if m is not None else ():
                if p.dim() > 1:
                    nn.init.xavier_uniform_(p)
        for p in self.decoder.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        for m in self.decoder.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
        nn.init.normal_(self.level_embed)
        bias = -math.log((1 - 0.01) / 0.01)
        for cls in self.cls_branches:
            nn.init.constant_(cls.bias, bias)
        for reg in self.reg_branches:
            nn.init.zeros_(reg[-1].weight)
            nn.init.zeros_(reg[-1].bias)
        nn.init.xavier_uniform_(self.input_proj[0].weight)
        nn.init.zeros_(self.input_proj[0].bias)

    def query_mask(self, total: int, device) -> torch.Tensor:
        """(total, total) True where a query may not attend: across the two groups."""
        mask = torch.zeros(total, total, dtype=torch.bool, device=device)
        mask[self.num_queries :, : self.num_queries] = True
        mask[: self.num_queries, self.num_queries :] = True
        return mask

    def forward(self, feats: torch.Tensor, padding: torch.Tensor, one2many: bool = False) -> dict:
        """``feats`` (B, C, h, w), ``padding`` (B, h, w) True on padding. Returns per decoder
        layer (dim 0) logits, boxes (cx, cy, w, h pixels), references, deltas of all queries, and
        ``enc``: the proposals' logits, boxes, references (the fixed proposals) and deltas."""
        src = self.input_proj(feats)
        B, C, h, w = src.shape
        pos = self.positional_encoding(padding).flatten(2).transpose(1, 2) + self.level_embed[0]
        src = src.flatten(2).transpose(1, 2)
        mask = padding.flatten(1)
        memory = (
            src
            if self.encoder is None
            else self.encoder(query=src, query_pos=pos, key_padding_mask=mask)
        )

        enc_memory, proposals, max_shape = self.proposals(memory, mask, (h, w))
        enc_logits = self.cls_branches[-1](enc_memory)
        enc_deltas = self.reg_branches[-1](enc_memory)
        enc_boxes = xyxy_to_cxcywh(decode_delta(proposals, enc_deltas, max_shape))
        total = self.num_queries + (self.num_queries_one2many if one2many else 0)
        if total > enc_logits.shape[1]:
            raise InputShapeError(
                f'PlainDETR selects {total} queries from {enc_logits.shape[1]} proposals (the '
                f'feature cells of a {tuple(padding.shape[-2:])} map at four strides): the images '
                'are too small for num_queries (+ num_queries_one2many in training)'
            )
        top = enc_logits[..., 0].topk(total, dim=1)[1]
        boxes = enc_boxes.gather(1, top[..., None].expand(-1, -1, 4)).detach()

        query_pos = self.query_pos_norm(self.query_pos_proj(sine_box_embedding(boxes, C)))[..., :C]
        query = self.query_embed.weight[:total][None].expand(B, -1, -1)
        attn_mask = self.query_mask(total, feats.device) if one2many else None
        states, refined, refs, deltas = self.decoder(
            query,
            query_pos,
            boxes,
            memory,
            pos,
            (h, w),
            self.reg_branches[:-1],
            max_shape,
            mask,
            attn_mask,
        )
        logits = torch.stack([cls(s) for cls, s in zip(self.cls_branches, states)])
        return dict(
            logits=logits,
            boxes=refined,
            references=refs,
            deltas=deltas,
            enc=dict(logits=enc_logits, boxes=enc_boxes, references=proposals, deltas=enc_deltas),
        )
