"""SimpleFPN (ViTDet): pyramid strides and shapes from one ViT map, LayerNorm-2d, P6."""

import pytest
import torch
from mmdet.registry import MODELS
from mmengine.registry import DefaultScope

import vitspec  # noqa: F401  (registers)
from vitspec.engine import no_decay_parameters


def build(**kwargs):
    with DefaultScope.overwrite_default_scope('mmdet'):
        return MODELS.build(dict(type='SimpleFPN', **kwargs))


@pytest.mark.parametrize('patch,scales', [(16, (4.0, 2.0, 1.0, 0.5)), (8, (2.0, 1.0, 0.5, 0.25))])
def test_levels_have_strides_4_to_64(patch, scales):
    neck = build(in_channels=32, out_channels=16, scale_factors=scales, num_outs=5)
    image = (256, 192)
    vit_map = torch.randn(2, 32, image[0] // patch, image[1] // patch)
    outs = neck((torch.randn(2, 32, 3, 3), vit_map))  # only the last map is used
    assert [tuple(o.shape) for o in outs] == [
        (2, 16, image[0] // s, image[1] // s) for s in (4, 8, 16, 32, 64)
    ]


def test_p6_is_a_strided_subsample_of_p5():
    neck = build(in_channels=8, out_channels=8, num_outs=5)
    outs = neck([torch.randn(1, 8, 8, 8)])
    torch.testing.assert_close(outs[4], outs[3][:, :, ::2, ::2])


def test_upsampling_halves_channels_per_deconv_with_norm_between():
    neck = build(in_channels=64, out_channels=16)
    x4, x2, x1, x05 = neck.resamplers
    convs = [m for m in x4 if isinstance(m, torch.nn.ConvTranspose2d)]
    assert [(c.in_channels, c.out_channels, c.stride) for c in convs] == [
        (64, 32, (2, 2)),
        (32, 16, (2, 2)),
    ]
    assert type(x4[1]).__name__ == 'LayerNorm2d' and isinstance(x4[2], torch.nn.GELU)
    assert [c.in_channels for c in (x2[0],)] == [64] and isinstance(x1, torch.nn.Identity)
    assert isinstance(x05, torch.nn.MaxPool2d)
    assert [m.conv.in_channels for m in neck.lateral_convs] == [16, 32, 64, 64]


def test_convs_are_normalised_over_channels_without_activation():
    neck = build(in_channels=8, out_channels=8).eval()
    lateral = neck.lateral_convs[2]
    assert not lateral.with_activation and lateral.conv.bias is None
    y = lateral(torch.randn(2, 8, 5, 5))
    torch.testing.assert_close(y.mean(1), torch.zeros(2, 5, 5), atol=1e-5, rtol=0)
    assert (y < 0).any()  # no ReLU after the norm


def test_every_parameter_gets_a_gradient_and_norms_get_no_weight_decay():
    neck = build(in_channels=16, out_channels=8)
    sum(o.sum() for o in neck([torch.randn(1, 16, 4, 4)])).backward()
    assert all(p.grad is not None for p in neck.parameters())
    exempt = no_decay_parameters(neck)
    norms = [p for n, p in neck.named_parameters() if '.ln.' in n or n.startswith('resamplers.0.1')]
    assert norms and all(id(p) in exempt for p in norms)


@pytest.mark.parametrize('kwargs', [dict(scale_factors=(3.0, 1.0)), dict(num_outs=3)])
def test_bad_arguments_raise(kwargs):
    with pytest.raises(ValueError):
        build(in_channels=8, **kwargs)
