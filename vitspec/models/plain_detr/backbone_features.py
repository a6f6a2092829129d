"""DINOv3's detection features from a plain ViT: the patch maps of several blocks (final norm
applied, as DINOv3's get_intermediate_layers(norm=True)), optionally each through its own
LayerNorm, concatenated on channels; with ``num_windows`` = n, the image is also cut into n x n
windows whose maps are put back side by side, and the whole image resized to one window's size
gives a global map resized to the same grid: [global, windows] on channels (twice the channels).
Read in facebookresearch/dinov3 dinov3/eval/detection/models/backbone.py (DINOBackbone) and
models/windows.py (WindowsWrapper); the resizes are torchvision's v2 resize, as there
(bilinear, antialiased). Any SpecViT works: its ``out_indices`` are the blocks taken."""

import math

import torch
import torch.nn.functional as F
from timm.layers import LayerNorm2d
from torch import nn
from torchvision.transforms.v2 import functional as TF


def window_sizes(size: int, n: int, patch: int) -> list:
    """n window sizes along one side: multiples of ``patch``, the last one what is left."""
    first = math.ceil((size // n) / patch) * patch
    return [first] * (n - 1) + [size - first * (n - 1)]


def resize(x: torch.Tensor, size) -> torch.Tensor:
    # torchvision's antialiased bilinear kernel has no bf16 / fp16 form on every device
    return TF.resize(x.float(), list(size)).to(x.dtype)


class BackboneFeatures(nn.Module):
    def __init__(self, backbone: nn.Module, num_windows: int = 0, feature_norm: bool = False):
        super().__init__()
        self.backbone = backbone
        self.num_windows = num_windows
        self.num_layers = len(backbone.out_indices)
        dims = backbone.embed_dims
        self.feature_norms = (
            nn.ModuleList(LayerNorm2d(dims, eps=1e-5) for _ in range(self.num_layers))
            if feature_norm
            else None
        )
        self.out_channels = dims * self.num_layers * (2 if num_windows else 1)

    def init_weights(self):
        # mmengine's BaseModule.init_weights reaches direct children only: the detector's
        # init_weights (the runner's) must reach the backbone's (its Pretrained checkpoint)
        self.backbone.init_weights()

    def maps(self, images: torch.Tensor) -> torch.Tensor:
        maps = list(self.backbone(images))
        if self.feature_norms is not None:
            maps = [norm(m) for norm, m in zip(self.feature_norms, maps)]
        return torch.cat(maps, dim=1)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        if not self.num_windows:
            return self.maps(images)
        n, patch = self.num_windows, self.backbone.patch_size
        heights = window_sizes(images.shape[2], n, patch)
        widths = window_sizes(images.shape[3], n, patch)
        rows, top = [], 0
        for h in heights:
            row, left = [], 0
            for w in widths:
                row.append(self.maps(images[:, :, top : top + h, left : left + w]))
                left += w
            rows.append(torch.cat(row, dim=-1))
            top += h
        windows = torch.cat(rows, dim=-2)
        whole = self.maps(resize(images, (heights[0], widths[0])))
        return torch.cat([resize(whole, windows.shape[-2:]), windows], dim=1)


def feature_mask(padding: torch.Tensor, hw) -> torch.Tensor:
    """The (B, h, w) padding mask of a feature map from the image's (B, H, W): nearest."""
    return F.interpolate(padding[None].float(), size=tuple(hw)).to(torch.bool)[0]
