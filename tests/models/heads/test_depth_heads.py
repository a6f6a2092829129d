"""Linear (DINOv2 lin.1 / lin.4) and DPT depth heads: shapes, bins, CLS use, losses, and the
order of operations of DINOv2's BNHead and DPTHead."""

import pytest
import torch
import torch.nn.functional as F
from mmengine.structures import PixelData
from mmseg.structures import SegDataSample

from vitspec.models.heads import DPTDepthHead, LinearDepthHead

BN = dict(type='BN')


def backbone_outputs(num, dims=32, grid=(6, 8), batch=2):
    return [(torch.randn(batch, dims, *grid), torch.randn(batch, dims)) for _ in range(num)]


def samples(batch, size=(24, 32)):
    out = []
    for _ in range(batch):
        s = SegDataSample()
        s.gt_depth_map = PixelData(data=torch.rand(1, *size) * 9 + 0.5)
        out.append(s)
    return out


@pytest.mark.parametrize('num_inputs', [1, 4])
def test_linear_head_concatenates_layers_and_cls(num_inputs):
    head = LinearDepthHead(in_channels=32, num_inputs=num_inputs, classify=True, norm_cfg=BN)
    assert head.conv_depth.in_channels == 32 * num_inputs * 2
    assert head.conv_depth.out_channels == 256
    depth = head(backbone_outputs(num_inputs))
    assert depth.shape == (2, 1, 24, 32)  # x4 upsampling of the 6x8 grid
    assert ((depth >= 1e-3) & (depth <= 10.0)).all()


def test_linear_head_uses_the_cls_token():
    head = LinearDepthHead(in_channels=32, norm_cfg=BN, classify=False).eval()
    fmap, cls = backbone_outputs(1)[0]
    a = head([(fmap, cls)])
    b = head([(fmap, cls + 1)])
    assert not torch.allclose(a, b)
    with pytest.raises(ValueError, match='output_cls_token=True'):
        head([fmap])


def test_bins_give_the_probability_weighted_depth():
    head = LinearDepthHead(
        in_channels=4,
        classify=True,
        n_bins=3,
        min_depth=1.0,
        max_depth=3.0,
        with_bn=False,
        norm_strategy='linear',
    )
    logits = torch.tensor([0.9, -5.0, 0.0]).reshape(1, 3, 1, 1)  # relu + 0.1: 1.0, 0.1, 0.1
    depth = head.depth_from_logits(logits)
    assert depth.item() == pytest.approx((1.0 * 1 + 0.1 * 2 + 0.1 * 3) / 1.2)
    head.norm_strategy = 'softmax'
    p = torch.softmax(logits.flatten(), 0)
    assert head.depth_from_logits(logits).item() == pytest.approx(
        (p * torch.tensor([1.0, 2.0, 3.0])).sum().item(), rel=1e-5
    )


def test_regression_modes():
    head = LinearDepthHead(in_channels=4, with_bn=False, min_depth=0.5, max_depth=8.0)
    x = torch.tensor([-1.0, 2.0]).reshape(1, 2, 1, 1).transpose(0, 1)
    assert head.depth_from_logits(x).flatten().tolist() == [0.5, 2.5]
    head.regression = 'sigmoid'
    assert head.depth_from_logits(torch.zeros(1, 1, 1, 1)).item() == pytest.approx(4.0)


def test_loss_and_predict_sizes():
    head = LinearDepthHead(
        in_channels=32,
        num_inputs=4,
        norm_cfg=BN,
        classify=True,
        loss_decode=[dict(type='SigLoss'), dict(type='GradientLoss')],
    )
    feats = backbone_outputs(4)
    losses = head.loss(feats, samples(2, size=(48, 64)))
    assert set(losses) == {'loss_sig', 'loss_grad'}
    sum(losses.values()).backward()
    assert head.conv_depth.weight.grad.abs().sum() > 0
    pred = head.predict(feats, [dict(img_shape=(45, 60), pad_shape=(48, 64))] * 2)
    assert pred.shape == (2, 1, 48, 64)


def test_wrong_number_of_inputs_is_named():
    head = LinearDepthHead(in_channels=32, num_inputs=4, norm_cfg=BN)
    with pytest.raises(ValueError, match='num_inputs=4.*got 1'):
        head(backbone_outputs(1))


@pytest.mark.parametrize('readout', ['project', 'add', 'ignore'])
def test_dpt_head_output_and_gradients(readout):
    head = DPTDepthHead(embed_dims=32, channels=16, readout_type=readout)
    head.init_weights()
    feats = backbone_outputs(4, grid=(5, 7))  # odd grid: the stride-2 level rounds up to 3x4
    depth = head(feats)
    assert depth.shape == (2, 1, 96, 128)  # 32x that level, as DINOv2's fusion order gives
    loss = head.loss(feats, samples(2, size=(70, 98)))['loss_sig']
    loss.backward()
    assert all(
        p.grad is not None
        for n, p in head.named_parameters()
        if readout == 'project' or not n.startswith('readouts')
    )


def test_dpt_head_default_channels_follow_dinov2():
    head = DPTDepthHead(embed_dims=64)
    assert [c.out_channels for c in head.projects] == [8, 16, 32, 64]
    with pytest.raises(ValueError, match='4 backbone outputs'):
        head(backbone_outputs(2, dims=64))


def test_linear_head_is_dinov2_bnhead_without_bn():
    """DINOv2's BNHead (dinov2/eval/depth/models/decode_heads/linear_head.py): cat (map, cls)
    per layer, resize to 4x the first grid, 1x1 conv (no BN), relu + 0.1, normalise, bins."""
    head = LinearDepthHead(
        in_channels=8, num_inputs=4, classify=True, n_bins=16, max_depth=80.0
    ).eval()
    assert isinstance(head.bn, torch.nn.Identity) and head.init_cfg is None
    assert [n for n, _ in head.named_parameters()] == ['conv_depth.weight', 'conv_depth.bias']
    feats = backbone_outputs(4, dims=8, grid=(5, 7))
    x = torch.cat([torch.cat([m, c[:, :, None, None].expand_as(m)], 1) for m, c in feats], 1)
    x = F.interpolate(x, size=(20, 28), mode='bilinear', align_corners=False)
    p = F.relu(head.conv_depth(x)) + 0.1
    p = p / p.sum(1, keepdim=True)
    ref = torch.einsum('bkhw,k->bhw', p, torch.linspace(1e-3, 80.0, 16)).unsqueeze(1)
    torch.testing.assert_close(head(feats), ref, rtol=1e-5, atol=1e-5)


def test_predict_clamps_before_it_resizes():
    """DINOv2's DepthEncoderDecoder.encode_decode clamps the head output, then resizes it."""
    head = LinearDepthHead(in_channels=4, min_depth=1.0, max_depth=10.0)
    head.forward = lambda inputs: torch.tensor([[[[1.0, 30.0]]]])
    pred = head.predict(None, [dict(img_shape=(1, 3), pad_shape=(1, 3))])
    # align_corners=False, 2 -> 3 columns: the middle one is the mean of both clamped values
    assert pred.flatten().tolist() == pytest.approx([1.0, 5.5, 10.0])


def dinov2_dpt_reference(head, inputs):
    """DINOv2's DPTHead.forward (dpt_head.py) written out on our head's layers: reassemble,
    3x3 convs, fusion from the coarsest level (the skip resized to the coarser path), a 3x3
    conv + ReLU, HeadDepth, then ReLU + min_depth."""
    levels = []
    for i, (fmap, cls) in enumerate(inputs):
        B, C, H, W = fmap.shape
        tokens = fmap.flatten(2).permute(0, 2, 1)
        tokens = head.readouts[i](torch.cat([tokens, cls.unsqueeze(1).expand_as(tokens)], -1))
        x = head.resizes[i](head.projects[i](tokens.permute(0, 2, 1).reshape(B, C, H, W)))
        levels.append(head.to_channels[i](x))

    def unit(u, x):
        return u.conv2(F.relu(u.conv1(F.relu(x)))) + x

    def fuse(block, x, skip=None):
        if skip is not None:
            if x.shape != skip.shape:
                skip = F.interpolate(skip, size=x.shape[2:], mode='bilinear', align_corners=False)
            x = x + unit(block.skip_unit, skip)
        x = F.interpolate(unit(block.unit, x), scale_factor=2, mode='bilinear', align_corners=True)
        return block.project(x)

    out = fuse(head.fusions[3], levels[3])
    for i in (2, 1, 0):
        out = fuse(head.fusions[i], out, levels[i])
    out = F.relu(head.project[0](out))
    return F.relu(head.head(out)) + head.min_depth


def test_dpt_head_follows_dinov2_dpthead():
    head = DPTDepthHead(embed_dims=32, channels=16)
    head.init_weights()
    for block in head.fusions:  # DINOv2's PreActResidualConvUnit convs have no bias
        units = [block.unit] + ([block.skip_unit] if block.skip_unit is not None else [])
        assert all(u.conv1.bias is None and u.conv2.bias is None for u in units)
    feats = backbone_outputs(4, grid=(5, 7))  # odd grid: the fusions resize a skip
    torch.testing.assert_close(head(feats), dinov2_dpt_reference(head, feats))


def test_heads_that_need_the_cls_token_say_so_alike():
    """Bare maps (a backbone without output_cls_token) are refused by one rule, named by the
    head's setting; a head that reads the map only takes either form."""
    maps = [fmap for fmap, _ in backbone_outputs(4)]
    linear = LinearDepthHead(in_channels=32, num_inputs=4, use_cls_token=True)
    dpt = DPTDepthHead(embed_dims=32, channels=16, readout_type='project')
    for head, setting in ((linear, 'use_cls_token=True'), (dpt, "readout_type='project'")):
        with pytest.raises(
            ValueError,
            match=f'{setting} needs \\(map, cls\\) backbone outputs: '
            'set output_cls_token=True on the backbone',
        ):
            head(maps)
    ignore = DPTDepthHead(embed_dims=32, channels=16, readout_type='ignore')
    assert torch.equal(ignore(maps), ignore([(m, None) for m in maps]))
