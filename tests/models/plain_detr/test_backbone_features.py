"""DINOv3's backbone features: the taken blocks concatenated; with n x n windows, the windows'
maps put back in place beside the whole image's, resized to the same grid."""

import torch

from vitspec.models import SpecViT
from vitspec.models.plain_detr.backbone_features import BackboneFeatures, window_sizes


def vit():
    torch.manual_seed(0)
    return SpecViT(img_size=32, patch_size=8, embed_dims=16, num_layers=2, num_heads=2,
                   out_indices=(0, 1)).eval()  # fmt: skip


def test_window_sizes_are_patch_multiples_the_last_taking_the_rest():
    assert window_sizes(160, 3, 16) == [64, 64, 32]
    assert window_sizes(496, 3, 16) == [176, 176, 144]
    assert window_sizes(480, 2, 16) == [240, 240]


def test_without_windows_the_blocks_are_concatenated():
    backbone = vit()
    x = torch.randn(1, 3, 32, 48)
    out = BackboneFeatures(backbone)(x)
    assert out.shape == (1, 32, 4, 6)
    torch.testing.assert_close(out, torch.cat(backbone(x), 1))


def test_each_window_is_the_backbone_on_its_crop_and_the_global_map_comes_first():
    backbone = vit()
    features = BackboneFeatures(backbone, num_windows=2)
    x = torch.randn(1, 3, 48, 64)
    out = features(x)
    assert out.shape == (1, 64, 6, 8) and features.out_channels == 64
    top_right = torch.cat(backbone(x[:, :, :24, 32:]), 1)
    torch.testing.assert_close(out[:, 32:, :3, 4:], top_right)
    bottom_left = torch.cat(backbone(x[:, :, 24:, :32]), 1)
    torch.testing.assert_close(out[:, 32:, 3:, :4], bottom_left)
    assert not torch.allclose(out[:, :32], out[:, 32:])
