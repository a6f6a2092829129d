"""ViT-Adapter's spatial prior module: a ResNet-like conv stem giving features at strides
4, 8, 16 and 32, each projected to the ViT's width."""

import torch
from mmcv.cnn import build_norm_layer
from torch import nn


def _conv_norm_relu(in_ch, out_ch, stride, norm_cfg):
    return [
        nn.Conv2d(in_ch, out_ch, kernel_size=3, stride=stride, padding=1, bias=False),
        build_norm_layer(norm_cfg, out_ch)[1],
        nn.ReLU(inplace=True),
    ]


class SpatialPriorModule(nn.Module):
    """stem (3 convs, max-pool: stride 4), conv2 / conv3 / conv4 (stride 8, 16, 32), and 1x1
    projections fc1..fc4 to ``embed_dims`` (arXiv 2205.08534 Sec. 3.2; parameter names as
    czczup/ViT-Adapter ``SpatialPriorModule``, which uses SyncBN: ``norm_cfg``).
    Returns four NCHW maps."""

    def __init__(self, inplanes: int = 64, embed_dims: int = 384, norm_cfg: dict = None):
        super().__init__()
        norm_cfg = norm_cfg or dict(type='SyncBN', requires_grad=True)
        self.stem = nn.Sequential(
            *_conv_norm_relu(3, inplanes, 2, norm_cfg),
            *_conv_norm_relu(inplanes, inplanes, 1, norm_cfg),
            *_conv_norm_relu(inplanes, inplanes, 1, norm_cfg),
            nn.MaxPool2d(kernel_size=3, stride=2, padding=1),
        )
        self.conv2 = nn.Sequential(*_conv_norm_relu(inplanes, 2 * inplanes, 2, norm_cfg))
        self.conv3 = nn.Sequential(*_conv_norm_relu(2 * inplanes, 4 * inplanes, 2, norm_cfg))
        self.conv4 = nn.Sequential(*_conv_norm_relu(4 * inplanes, 4 * inplanes, 2, norm_cfg))
        widths = (inplanes, 2 * inplanes, 4 * inplanes, 4 * inplanes)
        for i, width in enumerate(widths, 1):
            setattr(self, f'fc{i}', nn.Conv2d(width, embed_dims, kernel_size=1, bias=True))

    def forward(self, x: torch.Tensor):
        c1 = self.stem(x)
        c2 = self.conv2(c1)
        c3 = self.conv3(c2)
        c4 = self.conv4(c3)
        return self.fc1(c1), self.fc2(c2), self.fc3(c3), self.fc4(c4)
