"""Multi-scale deformable cross-attention between token maps, as ViT-Adapter's injector and
extractor call it, on mmcv 2.x's ``MultiScaleDeformableAttention`` (its CUDA kernel on a GPU,
its grid_sample path on CPU)."""

from typing import NamedTuple, Sequence, Tuple

import torch
from mmcv.ops import MultiScaleDeformableAttention


class DeformInputs(NamedTuple):
    """Where the queries sit and what the value maps are: reference points (1, Nq, 1, 2) in
    [0, 1], the value maps' (h, w) per level (L, 2) and each level's first index (L,)."""

    reference_points: torch.Tensor
    spatial_shapes: torch.Tensor
    level_start_index: torch.Tensor


def grid_reference_points(shapes: Sequence[Tuple[int, int]], device) -> torch.Tensor:
    """The cell centres of each (h, w) grid in [0, 1], as (x, y): (1, N, 1, 2)."""
    points = []
    for h, w in shapes:
        ys = (torch.arange(h, dtype=torch.float32, device=device) + 0.5) / h
        xs = (torch.arange(w, dtype=torch.float32, device=device) + 0.5) / w
        y, x = torch.meshgrid(ys, xs, indexing='ij')
        points.append(torch.stack((x.reshape(-1), y.reshape(-1)), -1))
    return torch.cat(points)[None, :, None]


def deform_inputs(query_shapes, value_shapes, device) -> DeformInputs:
    """Queries on the cells of ``query_shapes``, attending to maps of ``value_shapes``."""
    spatial = torch.as_tensor(value_shapes, dtype=torch.long, device=device).view(-1, 2)
    start = torch.cat((spatial.new_zeros(1), spatial.prod(1).cumsum(0)[:-1]))
    return DeformInputs(grid_reference_points(query_shapes, device), spatial, start)


def build_deformable_attention(dim, num_heads, num_levels, num_points, value_ratio):
    """mmcv's attention with ViT-Adapter's settings: batch first, no dropout; ``value_ratio``
    narrows value_proj / output_proj (upstream's ``deform_ratio``)."""
    return MultiScaleDeformableAttention(
        embed_dims=dim,
        num_heads=num_heads,
        num_levels=num_levels,
        num_points=num_points,
        dropout=0.0,
        batch_first=True,
        value_proj_ratio=value_ratio,
    )


def cross_attend(
    attn: MultiScaleDeformableAttention,
    query: torch.Tensor,
    value: torch.Tensor,
    inputs: DeformInputs,
) -> torch.Tensor:
    """The attention output alone (B, Nq, C): mmcv adds ``identity`` (the query by default)
    to its output, and ViT-Adapter adds its residual itself (the injector scales it)."""
    return attn(
        query,
        value=value,
        identity=query.new_zeros(()),
        reference_points=inputs.reference_points,  # broadcast over the batch
        spatial_shapes=inputs.spatial_shapes,
        level_start_index=inputs.level_start_index,
    )
