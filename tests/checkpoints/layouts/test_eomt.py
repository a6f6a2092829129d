import pytest
import torch

from tests.checkpoints.eomt_reference import IMAGENET_MEAN, IMAGENET_STD, reference_eomt
from vitspec.checkpoints.layouts.eomt import convert_eomt_checkpoint, from_eomt
from vitspec.checkpoints.load import load_state_dict_strict
from vitspec.conversion.eomt import convert_eomt_file
from vitspec.errors import CheckpointError
from vitspec.fileio import safe_torch_load
from vitspec.models.backbones.spec_vit import SpecViT
from vitspec.models.eomt.network import EoMTNetwork


def converted(ref, **network_kw):
    sd, backbone_cfg, eomt_cfg = convert_eomt_checkpoint({'state_dict': ref.state_dict()}, 2)
    net = EoMTNetwork(SpecViT(**backbone_cfg), **eomt_cfg, **network_kw)
    load_state_dict_strict(net, sd)
    return net


def normalized(img):
    mean = torch.tensor(IMAGENET_MEAN).view(1, 3, 1, 1)
    return (img - mean) / torch.tensor(IMAGENET_STD).view(1, 3, 1, 1)


def both(ref, net, img, prob, train):
    for module in (ref.network, net):
        module.train(train)
        module.attn_mask_probs.fill_(prob)
    torch.manual_seed(1)  # the same draws of freed queries, block by block
    expected = ref.network(img)
    torch.manual_seed(1)
    return expected, net(normalized(img))


@pytest.mark.parametrize(
    'prob,train', [(1.0, True), (0.5, True), (0.0, True), (0.0, False)], ids=str
)
def test_converted_network_matches_the_reference_per_layer(prob, train):
    ref = reference_eomt()
    net = converted(ref)
    img = torch.rand(2, 3, 64, 64)
    with torch.no_grad():
        (ref_masks, ref_classes), (masks, classes) = both(ref, net, img, prob, train)
    assert len(masks) == len(classes) == 3
    for a, b in zip(masks + classes, ref_masks + ref_classes):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-4)


def test_the_mask_changes_the_output():
    ref = reference_eomt()
    net = converted(ref)
    img = torch.rand(2, 3, 64, 64)
    with torch.no_grad():
        _, (masked, _) = both(ref, net, img, 1.0, True)
        _, (plain, _) = both(ref, net, img, 0.0, True)
    assert torch.equal(masked[0], plain[0])  # before the first query block: no mask yet
    assert not torch.allclose(masked[-1], plain[-1], atol=1e-3)


def test_query_specialized_network_loads_a_released_file_unchanged():
    ref = reference_eomt()
    plain = converted(ref).eval()
    spec = converted(ref, query_specialize=True).eval()
    img = torch.randn(1, 3, 64, 64)
    with torch.no_grad():
        (plain_masks, plain_classes), (masks, classes) = plain(img), spec(img)
    for a, b in zip(masks + classes, plain_masks + plain_classes):
        torch.testing.assert_close(a, b)


def test_convert_file_writes_the_segmentor_layout(tmp_path):
    ref = reference_eomt()
    src, dst = tmp_path / 'pytorch_model.bin', tmp_path / 'eomt.pth'
    torch.save(ref.state_dict(), src)
    meta = convert_eomt_file(str(src), str(dst), num_heads=2)
    assert meta['eomt_cfg'] == dict(num_classes=5, num_queries=6, num_blocks=2)
    assert meta['backbone_cfg']['num_register_tokens'] == 2
    out = safe_torch_load(str(dst))
    assert set(out['meta']) >= {'backbone_cfg', 'eomt_cfg'}
    assert all(k.startswith('network.') for k in out['state_dict'])
    assert 'network.query_embed.weight' in out['state_dict']


def test_foreign_keys_are_refused():
    sd = reference_eomt().state_dict()
    sd['optimizer_state.x'] = torch.zeros(1)
    with pytest.raises(CheckpointError, match='optimizer_state.x'):
        from_eomt(sd)
    with pytest.raises(CheckpointError, match='no network'):
        convert_eomt_checkpoint({'state_dict': {'backbone.cls_token': torch.zeros(1)}})
