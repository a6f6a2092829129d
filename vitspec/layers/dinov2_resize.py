"""DINOv2's position-embedding resampling in a form whose size follows the input, for export.

``pos_embed_interp='dinov2'`` resizes the (old_h, old_w) table with
``F.interpolate(scale_factor=(new + 0.1) / old, mode='bicubic')``; the exporter writes that
scale factor as a constant of the traced size. Here the same bicubic resize (PyTorch's: cubic
convolution with a = -0.75, source coordinate (dst + 0.5) / scale - 0.5, indices clamped to the
border) is a product with one (new, old) matrix per axis, whose weights are computed inside the
graph from the symbolic new size. `resample_pos_embed` takes this form while exporting.
"""

import torch

CUBIC_A = -0.75  # PyTorch's bicubic without antialiasing


def _cubic_weights(t: torch.Tensor):
    """The four cubic-convolution weights of source pixels floor(x) - 1 .. floor(x) + 2, for
    the fractional parts ``t`` of the source coordinates x."""
    a = CUBIC_A

    def near(d):  # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):  # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a

    return far(t + 1), near(t), near(1 - t), far(2 - t)


def dinov2_resize_matrix(old: int, like: torch.Tensor) -> torch.Tensor:
    """(new, old): the bicubic resize by scale factor (new + 0.1) / old, where new is the length
    of ``like`` (a 1-D tensor), so that the matrix follows a symbolic size."""
    dst = torch.arange(like.shape[0], device=like.device, dtype=torch.float32)
    new = torch.ones_like(dst, dtype=torch.float64).sum()  # the new length as a tensor
    # PyTorch's source step: 1 / scale_factor in double, then float, as its float kernel has it
    step = (old / (new + 0.1)).float()
    src = step * (dst + 0.5) - 0.5
    start = torch.floor(src)
    columns = torch.arange(old, device=like.device)
    matrix = torch.zeros(dst.shape[0], old, device=like.device)
    for k, weight in enumerate(_cubic_weights(src - start)):
        index = (start.long() - 1 + k).clamp(0, old - 1)
        matrix = matrix + weight[:, None] * (index[:, None] == columns[None]).float()
    return matrix


def _identity_where(keep: torch.Tensor, matrix: torch.Tensor) -> torch.Tensor:
    """``matrix`` (new, old), or where ``keep`` (new == old on both axes) the identity."""
    rows = torch.arange(matrix.shape[0], device=matrix.device)
    columns = torch.arange(matrix.shape[1], device=matrix.device)
    return torch.where(keep, (rows[:, None] == columns[None]).float(), matrix)


def resample_dinov2_by_matrices(pos_embed, new_hw, old_hw, num_prefix: int) -> torch.Tensor:
    """What ``resample_pos_embed(..., mode='dinov2')`` returns, by two matrix products."""
    prefix, grid = pos_embed[:, :num_prefix], pos_embed[:, num_prefix:]
    grid = grid.float().reshape(*old_hw, -1)
    like_h = torch.ones(new_hw[0], device=grid.device)
    like_w = torch.ones(new_hw[1], device=grid.device)
    rows = dinov2_resize_matrix(old_hw[0], like_h)
    cols = dinov2_resize_matrix(old_hw[1], like_w)
    # at the table's own grid SpecViT keeps it (the bicubic by (old + 0.1) / old is no identity);
    # the graph, traced elsewhere, decides by the lengths as tensors
    keep = (like_h.sum() == old_hw[0]) & (like_w.sum() == old_hw[1])
    rows, cols = _identity_where(keep, rows), _identity_where(keep, cols)
    grid = torch.einsum('Hh,hwc,Ww->HWc', rows, grid, cols).reshape(1, -1, grid.shape[-1])
    return torch.cat([prefix, grid.to(pos_embed.dtype)], dim=1)
