"""Every SpecViT technique exported on a toy model, run by onnxruntime on CPU against PyTorch
(the per-technique numbers are in docs/export.md)."""

import pytest
import torch

from tests.models.toy_techniques import TECHNIQUES, TOY
from vitspec.errors import ConfigError
from vitspec.export import check_parity, export_model
from vitspec.export.model_export import tracing_size
from vitspec.models import SpecViT

# The toy's outputs are final-norm features of about unit scale; measured here at most 3e-6
# (float32 rounding of reordered sums), so a wrong operator (1e-2 and more) cannot pass.
TOLERANCE = 2e-5
EXPORTED = {
    **TECHNIQUES,
    'swiglu': dict(ffn_type='swiglu'),
    # DINOv2's configs resample the position embedding by DINOv2's own rule
    'pos_embed_dinov2': dict(pos_embed_interp='dinov2', num_register_tokens=4),
    'pos_embed_vitdet': dict(pos_embed_interp='vitdet'),
    # toy_techniques' windows without its LayerScale, whose 1e-5 on the attention branch would
    # hide a wrong window mask
    'windowed_attention': dict(window_size=2, global_attn_indexes=(1,), rel_pos_bias='decomposed'),
}
NOT_EXPORTED = {'token_graying_svd'}  # no ONNX operator for an SVD (vitspec/export/limits.py)
FIXED_SIZE = {'rel_pos_table'}
SIZE = (32, 40)  # the toy's img_size is 32: a 4 x 5 grid, resampled from 4 x 4
OTHER_SIZES = [(45, 29), (32, 32)]  # not a multiple of the patch; the table's own grid


# tests/models/toy_techniques' toy with two blocks instead of three (block 0 and the last still
# returned, every technique still has a block of each kind): each export takes a third less
EXPORT_TOY = dict(num_layers=2, out_indices=(0, 1))


def build_toy(technique):
    """tests/models/toy_techniques' technique (or one added here) on EXPORT_TOY, away from its
    init as toy_techniques builds them, in eval mode."""
    torch.manual_seed(0)
    model = SpecViT(**{**TOY, **EXPORT_TOY, **EXPORTED[technique]})
    model.init_weights()
    with torch.no_grad():  # away from init: zero LoRA factors and rel-pos tables would hide errors
        for p in model.parameters():
            if not p.abs().any():
                p.normal_(std=0.02)
    return model.eval()


@pytest.mark.parametrize('technique', sorted(set(EXPORTED) - NOT_EXPORTED))
def test_technique_exports_and_matches_pytorch(technique, tmp_path):
    model = build_toy(technique)
    exported = export_model(model, tmp_path / 'toy.onnx', SIZE, dynamic=True)
    assert exported.dynamic_batch
    assert exported.dynamic_size == (technique not in FIXED_SIZE)
    assert bool(exported.fixed_size_reason) == (technique in FIXED_SIZE)
    checks = check_parity(model, exported, OTHER_SIZES)
    assert len(checks) == (1 if technique in FIXED_SIZE else 3)
    for check in checks:
        assert check.max_abs_difference < TOLERANCE, (technique, check)


def test_svd_token_graying_is_refused_saying_why(tmp_path):
    with pytest.raises(ConfigError, match='no SVD operator'):
        export_model(build_toy('token_graying_svd'), tmp_path / 'x.onnx', SIZE)
    assert not (tmp_path / 'x.onnx').exists()


def test_fixed_shape_export_has_the_given_batch_and_size(tmp_path):
    from vitspec.export import OnnxModel

    exported = export_model(build_toy('plain'), tmp_path / 'x.onnx', SIZE, dynamic=False)
    assert (exported.dynamic_batch, exported.dynamic_size) == (False, False)
    assert OnnxModel(exported.path).input_shape() == [1, 3, *SIZE]
    assert OnnxModel(exported.path).metadata['size'] == list(SIZE)


def test_tracing_avoids_the_position_embeddings_own_grid():
    model = build_toy('plain')  # img_size 32, patch 8: grid 4 x 4
    assert tracing_size(model, (32, 32)) == (40, 40)
    assert tracing_size(model, (29, 32)) == (37, 40)  # ceil(29 / 8) = 4 as well
    assert tracing_size(model, (32, 40)) == (32, 40)
    windowed = build_toy('windowed_attention')  # windows of 2 x 2 cells
    assert tracing_size(windowed, (32, 48)) == (40, 48)  # a 4 x 6 grid would need no padding
    assert tracing_size(windowed, (32, 32)) == (40, 40)  # the table's grid, then 5 x 5
    assert tracing_size(windowed, (32, 40)) == (32, 40)
