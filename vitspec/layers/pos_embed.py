"""Learned absolute position embeddings resampled to another token grid (timm's, DINOv2's
and ViTDet's rules)."""

import torch
import torch.nn.functional as F
from timm.layers import resample_abs_pos_embed

from vitspec.errors import ConfigError

from .dinov2_resize import resample_dinov2_by_matrices

POS_EMBED_MODES = ('timm', 'dinov2', 'vitdet')


def resample_pos_embed(
    pos_embed: torch.Tensor, new_hw, old_hw, num_prefix: int, mode: str = 'timm'
) -> torch.Tensor:
    """Resample a learned (1, num_prefix + h*w, D) position embedding to a new token grid.

    mode='timm': size-based bicubic with antialiasing (timm; DINOv2 models with registers).
    mode='dinov2': the original DINOv2 rule, bicubic by scale factor (new + 0.1) / old, no
    antialiasing. mode='vitdet': size-based bicubic without antialiasing, as ViTDet's get_abs_pos,
    mmseg's MAE / BEiT resize_abs_pos_embed and the ViT-Adapter's _get_pos_embed
    (czczup/ViT-Adapter, DINOv2's dinov2/eval/segmentation_m2f/models/backbones/vit_adapter.py:
    F.interpolate to the grid's size, bicubic, align_corners=False) (PyTorch's antialiased bicubic
    uses another kernel, so this differs from 'timm' even when upsampling). They differ at every
    size but the native one.

    Under torch.compile the 'timm' mode, and while exporting (``torch.compiler.is_exporting()``:
    torch.export and the dynamo ONNX exporter) the 'dinov2' mode, take forms whose size follows
    a symbolic input (products with resize matrices).
    """
    new_hw, old_hw = tuple(new_hw), tuple(old_hw)
    if new_hw == old_hw:
        return pos_embed
    if mode == 'timm':
        if torch.compiler.is_compiling():
            return _antialiased_bicubic_by_matmul(pos_embed, new_hw, old_hw, num_prefix)
        return resample_abs_pos_embed(
            pos_embed, list(new_hw), list(old_hw), num_prefix_tokens=num_prefix, antialias=True
        )
    if mode == 'dinov2' and torch.compiler.is_exporting():
        return resample_dinov2_by_matrices(pos_embed, new_hw, old_hw, num_prefix)
    if mode not in POS_EMBED_MODES:
        raise ConfigError(f'pos_embed_interp must be one of {POS_EMBED_MODES}, got {mode!r}')
    prefix, grid = pos_embed[:, :num_prefix], pos_embed[:, num_prefix:]
    dim = grid.shape[-1]
    grid = grid.float().reshape(1, *old_hw, dim).permute(0, 3, 1, 2)
    if mode == 'vitdet':
        grid = F.interpolate(grid, size=new_hw, mode='bicubic', align_corners=False)
    else:  # 0.1 offset: DINOv2's fix for float rounding in the output size (dino#8)
        scale = ((new_hw[0] + 0.1) / old_hw[0], (new_hw[1] + 0.1) / old_hw[1])
        grid = F.interpolate(grid, scale_factor=scale, mode='bicubic', antialias=False)
    assert tuple(grid.shape[-2:]) == new_hw, (grid.shape, new_hw)
    grid = grid.permute(0, 2, 3, 1).reshape(1, -1, dim).to(pos_embed.dtype)
    return torch.cat([prefix, grid], dim=1)


def _antialiased_bicubic_by_matmul(pos_embed, new_hw, old_hw, num_prefix: int) -> torch.Tensor:
    """The 'timm' resampling as a product with two resize matrices, for torch.compile: the
    antialiased bicubic resize is separable and linear, and the backward of F.interpolate's has
    no meta kernel for symbolic sizes (torch 2.14), so training on varying input sizes failed to
    compile. Equal to timm's up to float rounding."""
    prefix, grid = pos_embed[:, :num_prefix], pos_embed[:, num_prefix:]
    rows = _resize_matrix(old_hw[0], new_hw[0], grid.device)
    cols = _resize_matrix(old_hw[1], new_hw[1], grid.device)
    grid = grid.float().reshape(*old_hw, -1)
    grid = torch.einsum('Hh,hwc,Ww->HWc', rows, grid, cols).reshape(1, -1, grid.shape[-1])
    return torch.cat([prefix, grid.to(pos_embed.dtype)], dim=1)


def _resize_matrix(old: int, new: int, device) -> torch.Tensor:
    """(new, old): the antialiased bicubic resize of a length-``old`` signal to ``new``."""
    # the signal along W: along H with W = 1, the CPU kernel returns a constant (torch 2.14)
    basis = torch.eye(old, device=device).reshape(old, 1, 1, old)
    resized = F.interpolate(basis, size=(1, new), mode='bicubic', antialias=True)
    return resized.reshape(old, new).T
