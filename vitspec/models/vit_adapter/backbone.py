"""ViTAdapter: SpecViT with ViT-Adapter's spatial prior and interactions (arXiv 2205.08534),
giving the 4 maps at strides 4, 8, 16, 32 that Mask2Former's pixel decoder reads."""

import contextlib
import math
from typing import Sequence

import torch
import torch.nn.functional as F
from mmcv.cnn import build_norm_layer
from mmcv.ops import MultiScaleDeformableAttention
from mmengine.model import BaseModule
from torch import nn
from torch.utils.checkpoint import checkpoint

from vitspec.errors import ConfigError
from vitspec.layers.patch_embed import center_pad_to_multiple

from ..backbones.spec_vit import SpecViT
from ..registry import register_backbone
from .deformable_cross_attention import deform_inputs
from .interaction import AdapterInteraction
from .spatial_prior import SpatialPriorModule

VIT_AUTOCAST = (None, 'bfloat16', 'float16')


def interaction_ends(indexes, num_layers: int) -> list:
    """The last block of each interaction group: ``[5, 11, 17, 23]`` or upstream's
    ``[[0, 5], [6, 11], [12, 17], [18, 23]]`` (groups must follow each other from block 0)."""
    if not indexes:
        raise ConfigError('ViTAdapter interaction_indexes: give the last block of each group')
    ends, start = [], 0
    for item in indexes:
        if isinstance(item, (list, tuple)):
            if len(item) != 2 or item[0] != start:
                raise ConfigError(
                    f'ViTAdapter interaction_indexes: group {list(item)} must be [{start}, end]'
                    ' (contiguous groups from block 0)'
                )
            item = item[1]
        if not start <= item < num_layers:
            raise ConfigError(
                f'ViTAdapter interaction_indexes: {item} is not a block after {start - 1} of '
                f'the {num_layers}-block ViT'
            )
        ends.append(int(item))
        start = item + 1
    return ends


@register_backbone
class ViTAdapter(BaseModule):
    """A SpecViT (``vit``: its config dict, every technique allowed) run block group by block
    group, with ViT-Adapter's modules around it.

    The spatial prior module turns the image into maps at strides 8, 16, 32 (plus 4); before
    each group of blocks ending at ``interaction_indexes[i]`` an injector adds the prior to the
    patch tokens, after it an extractor updates the prior from the patch tokens (two more
    extractors after the last group with ``use_extra_extractor``). The blocks run with the
    ViT's own TokenLayout (CLS, registers, RoPE, windows, specialization), prefix tokens
    untouched by the adapter. With the ViT's ``final_norm`` the extractors read the tokens
    after the ViT's final norm (DINOv3's ``get_intermediate_layers(norm=True)``), else the raw
    tokens (ViT-Adapter). ``add_vit_feature`` adds each group's patch map, resized, to the
    map of the same rank. Outputs pass a ``norm_cfg`` norm each (SyncBN upstream).

    ``with_injector=False``: DINOv3's adapter (facebookresearch/dinov3 ``dinov3_adapter.py``):
    no injectors, so the ViT computes exactly its own features (freeze it with the ViT's
    ``frozen_stages``, as DINOv3 does). ``with_cp``: activation checkpointing of every block
    and adapter module. ``drop_path_rate``: of the extractors' FFNs (upstream passes the ViT's).
    ``vit_autocast``: 'bfloat16' or 'float16' runs the ViT (embedding, blocks, final norm) under
    autocast of that dtype on the input's device, the adapter modules in the surrounding
    precision, as DINOv3's adapter runs its frozen ViT under bfloat16 autocast
    (``dinov3_adapter.py`` forward); None: the ViT in the surrounding precision.
    """

    def __init__(
        self,
        vit: dict,
        interaction_indexes: Sequence,
        with_injector: bool = True,
        conv_inplane: int = 64,
        deform_num_heads: int = 6,
        n_points: int = 4,
        deform_ratio: float = 1.0,
        init_values: float = 0.0,
        with_cffn: bool = True,
        cffn_ratio: float = 0.25,
        use_extra_extractor: bool = True,
        add_vit_feature: bool = True,
        drop_path_rate: float = 0.0,
        norm_cfg: dict = None,
        with_cp: bool = False,
        vit_autocast: str = None,
        init_cfg=None,
    ):
        super().__init__(init_cfg=init_cfg)
        if vit_autocast not in VIT_AUTOCAST:
            raise ConfigError(
                f'ViTAdapter vit_autocast must be one of {VIT_AUTOCAST}, got {vit_autocast!r}'
            )
        self.vit_autocast = vit_autocast
        vit = dict(vit)
        vit_type = vit.pop('type', 'SpecViT')
        if vit_type not in ('SpecViT', SpecViT):
            raise ConfigError(f"ViTAdapter vit: type must be 'SpecViT', got {vit_type!r}")
        self.vit = SpecViT(**vit)
        self.interaction_indexes = interaction_ends(interaction_indexes, self.vit.num_layers)
        self.with_injector = with_injector
        self.add_vit_feature = add_vit_feature
        self.with_cp = with_cp or self.vit.with_cp
        dim = self.vit.embed_dims
        norm_cfg = norm_cfg or dict(type='SyncBN', requires_grad=True)

        self.level_embed = nn.Parameter(torch.zeros(3, dim))
        self.spm = SpatialPriorModule(conv_inplane, dim, norm_cfg)
        num = len(self.interaction_indexes)
        self.interactions = nn.Sequential(
            *[
                AdapterInteraction(
                    dim,
                    deform_num_heads,
                    n_points,
                    with_injector=with_injector,
                    init_values=init_values,
                    deform_ratio=deform_ratio,
                    with_cffn=with_cffn,
                    cffn_ratio=cffn_ratio,
                    drop_path=drop_path_rate,
                    extra_extractor=use_extra_extractor and i == num - 1,
                )
                for i in range(num)
            ]
        )
        self.up = nn.ConvTranspose2d(dim, dim, 2, 2)
        for i in range(1, 5):
            setattr(self, f'norm{i}', build_norm_layer(norm_cfg, dim)[1])
        self._init_adapter_weights()

    def _init_adapter_weights(self):
        """As upstream: trunc-normal linears, He-normal (fan-out) convs, then mmcv's own init
        of the deformable attentions, level embeddings N(0, 1)."""
        for module in (self.spm, self.interactions, self.up):
            module.apply(_init_adapter_module)
        for m in self.modules():
            if isinstance(m, MultiScaleDeformableAttention):
                m.init_weights()
        nn.init.normal_(self.level_embed)

    def init_weights(self):
        self.vit.init_weights()  # random or the Pretrained checkpoint (SpecViT's loader)
        self._is_init = True

    def get_layer_depth(self, param_name: str, prefix: str = ''):
        """The ViT's depths for its parameters; the adapter's modules take the top depth
        (ViT-Adapter's layer decay leaves them at the base lr)."""
        depth, total = self.vit.get_layer_depth(param_name, prefix + 'vit.')
        if param_name.startswith(prefix + 'vit.'):
            return depth, total
        return total - 1, total

    def _vit_precision(self, device: torch.device):
        if self.vit_autocast is None:
            return contextlib.nullcontext()
        return torch.autocast(device.type, dtype=getattr(torch, self.vit_autocast))

    def _run(self, fn, *args):
        if self.with_cp and any(isinstance(a, torch.Tensor) and a.requires_grad for a in args):
            return checkpoint(fn, *args, use_reentrant=False)
        return fn(*args)

    def forward(self, x: torch.Tensor):
        vit = self.vit
        x = center_pad_to_multiple(x, vit.patch_size)
        B = x.shape[0]
        c1, *priors = self.spm(x)
        prior_shapes = [tuple(p.shape[-2:]) for p in priors]
        c = torch.cat(
            [p.flatten(2).transpose(1, 2) + self.level_embed[i] for i, p in enumerate(priors)], 1
        )
        with self._vit_precision(x.device):
            tokens, layout = vit.tokens(x)
        h, w = layout.hw
        to_vit = deform_inputs([(h, w)], prior_shapes, x.device)
        to_prior = deform_inputs(prior_shapes, [(h, w)], x.device)
        num_prefix = tokens.shape[1] - h * w  # CLS, registers: the adapter leaves them alone

        vit_maps, start = [], 0
        for interaction, end in zip(self.interactions, self.interaction_indexes):
            if interaction.injector is not None:
                patches = self._run(interaction.injector, tokens[:, num_prefix:], c, to_vit)
                tokens = torch.cat([tokens[:, :num_prefix], patches], 1)
            with self._vit_precision(x.device):
                tokens = vit.run_blocks(tokens, layout, start, end + 1, self.with_cp)
                feats = vit.norm(tokens) if vit.final_norm else tokens
            start = end + 1
            patches = feats[:, num_prefix:].to(c.dtype)
            c = self._run(interaction.extract, c, patches, to_prior, prior_shapes)
            vit_maps.append(patches.transpose(1, 2).reshape(B, -1, h, w))

        sizes = [h * w for h, w in prior_shapes]
        c2, c3, c4 = (
            level.transpose(1, 2).reshape(B, -1, *shape)
            for level, shape in zip(c.split(sizes, dim=1), prior_shapes)
        )
        c1 = self.up(c2) + c1
        maps = [c1, c2, c3, c4]
        if self.add_vit_feature:
            maps = [
                m + F.interpolate(v, size=m.shape[-2:], mode='bilinear', align_corners=False)
                for m, v in zip(maps, _four(vit_maps))
            ]
        return tuple(getattr(self, f'norm{i}')(m) for i, m in enumerate(maps, 1))


def _four(vit_maps: list) -> list:
    if len(vit_maps) != 4:
        raise ConfigError(
            f'ViTAdapter add_vit_feature adds one ViT map per output: it needs 4 '
            f'interaction_indexes, got {len(vit_maps)}'
        )
    return vit_maps


def _init_adapter_module(m: nn.Module):
    if isinstance(m, nn.Linear):
        nn.init.trunc_normal_(m.weight, std=0.02)
        if m.bias is not None:
            nn.init.zeros_(m.bias)
    elif isinstance(m, (nn.LayerNorm, nn.modules.batchnorm._BatchNorm)):
        nn.init.ones_(m.weight)
        nn.init.zeros_(m.bias)
    elif isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
        fan_out = m.kernel_size[0] * m.kernel_size[1] * m.out_channels // m.groups
        nn.init.normal_(m.weight, 0, math.sqrt(2.0 / fan_out))
        if m.bias is not None:
            nn.init.zeros_(m.bias)
