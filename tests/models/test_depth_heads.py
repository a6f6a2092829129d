"""Linear (DINOv2 lin.1 / lin.4) and DPT depth heads: shapes, bins, CLS use, losses."""
import pytest
import torch
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
    head = LinearDepthHead(in_channels=4, classify=True, n_bins=3, min_depth=1.0,
                           max_depth=3.0, with_bn=False, norm_strategy='linear')
    logits = torch.tensor([0.9, -5.0, 0.0]).reshape(1, 3, 1, 1)  # relu + 0.1: 1.0, 0.1, 0.1
    depth = head.depth_from_logits(logits)
    assert depth.item() == pytest.approx((1.0 * 1 + 0.1 * 2 + 0.1 * 3) / 1.2)
    head.norm_strategy = 'softmax'
    p = torch.softmax(logits.flatten(), 0)
    assert head.depth_from_logits(logits).item() == pytest.approx(
        (p * torch.tensor([1.0, 2.0, 3.0])).sum().item(), rel=1e-5)


def test_regression_modes():
    head = LinearDepthHead(in_channels=4, with_bn=False, min_depth=0.5, max_depth=8.0)
    x = torch.tensor([-1.0, 2.0]).reshape(1, 2, 1, 1).transpose(0, 1)
    assert head.depth_from_logits(x).flatten().tolist() == [0.5, 2.5]
    head.regression = 'sigmoid'
    assert head.depth_from_logits(torch.zeros(1, 1, 1, 1)).item() == pytest.approx(4.0)


def test_loss_and_predict_sizes():
    head = LinearDepthHead(in_channels=32, num_inputs=4, norm_cfg=BN, classify=True,
                           loss_decode=[dict(type='SigLoss'), dict(type='GradientLoss')])
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
    feats = backbone_outputs(4, grid=(5, 7))  # odd grid: the stride-2 level rounds up
    depth = head(feats)
    assert depth.shape == (2, 1, 80, 112)  # 16x the patch grid
    loss = head.loss(feats, samples(2, size=(70, 98)))['loss_sig']
    loss.backward()
    assert all(p.grad is not None for n, p in head.named_parameters()
               if readout == 'project' or not n.startswith('readouts'))


def test_dpt_head_default_channels_follow_dinov2():
    head = DPTDepthHead(embed_dims=64)
    assert [c.out_channels for c in head.projects] == [8, 16, 32, 64]
    with pytest.raises(ValueError, match='4 backbone outputs'):
        head(backbone_outputs(2, dims=64))
