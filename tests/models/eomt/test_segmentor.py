"""The EoMT segmentor: semantic inference through mmseg's API, training losses, with_cp,
bf16 autocast."""

import copy

import pytest
import torch
from mmengine.registry import init_default_scope
from mmengine.structures import PixelData
from mmseg.registry import MODELS
from mmseg.structures import SegDataSample

from tests.models.eomt.former_names import with_former_query_names
from vitspec.checkpoints.load import load_state_dict_strict
from vitspec.errors import CheckpointError
from vitspec.models.eomt.segmentor import semantic_scores

K, Q, P = 5, 6, 8  # classes, queries, patch size

CFG = dict(
    type='EoMT',
    data_preprocessor=dict(
        type='SegDataPreProcessor',
        mean=[123.675, 116.28, 103.53],
        std=[58.395, 57.12, 57.375],
        size_divisor=P,
        seg_pad_val=255,
    ),
    backbone=dict(
        type='SpecViT',
        img_size=32,
        patch_size=P,
        embed_dims=32,
        num_layers=3,
        num_heads=2,
        out_indices=(2,),
    ),
    num_classes=K,
    num_queries=Q,
    num_blocks=2,
    loss=dict(num_points=64),
    test_cfg=dict(mode='whole'),
)


def build(**changes):
    init_default_scope('mmseg')
    cfg = copy.deepcopy(CFG)
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(cfg.get(key), dict):
            cfg[key].update(value)
        else:
            cfg[key] = value
    torch.manual_seed(0)
    model = MODELS.build(cfg)
    model.init_weights()
    return model


def samples(n=2, size=(32, 32)):
    out = []
    gen = torch.Generator().manual_seed(1)
    for _ in range(n):
        seg = torch.randint(0, K, (1, *size), generator=gen)
        seg[:, :2] = 255
        sample = SegDataSample(metainfo=dict(img_shape=size, pad_shape=size, ori_shape=size))
        sample.gt_sem_seg = PixelData(data=seg)
        out.append(sample)
    return out


def test_semantic_scores_sum_class_probabilities_times_mask_probabilities():
    masks, classes = torch.randn(2, Q, 4, 4), torch.randn(2, Q, K + 1)
    scores = semantic_scores(masks, classes, (4, 4))
    expected = torch.zeros(2, K, 4, 4)
    for q in range(Q):
        p = classes[:, q].softmax(-1)[:, :K]
        expected += p[:, :, None, None] * masks[:, q, None].sigmoid()
    assert torch.allclose(scores, expected, atol=1e-6)


def test_semantic_scores_keep_the_image_part_of_center_padded_masks():
    masks, classes = torch.randn(1, Q, 8, 8), torch.randn(1, Q, K + 1)
    padded = semantic_scores(masks, classes, (32, 32))
    inner = semantic_scores(masks, classes, (28, 30), multiple=8)  # padded by 4 rows, 2 cols
    assert inner.shape[-2:] == (28, 30)
    assert torch.allclose(inner, padded[..., 2:30, 1:31], atol=1e-6)


def test_predict_returns_seg_data_samples_with_scores_of_the_last_layer():
    model = build().eval()
    x = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        masks, classes = model.network(x)
        out = model.predict(x, samples())
    expected = semantic_scores(masks[-1], classes[-1], (32, 32))
    assert isinstance(out[0], SegDataSample)
    assert out[0].seg_logits.data.shape == (K, 32, 32)
    assert torch.allclose(out[1].seg_logits.data, expected[1], atol=1e-6)
    assert torch.equal(out[1].pred_sem_seg.data[0], expected[1].argmax(0))


def test_slide_inference_covers_the_image_and_equals_whole_with_one_window():
    x = torch.randn(1, 3, 48, 40)
    meta = [dict(ori_shape=(48, 40), img_shape=(48, 40), pad_shape=(48, 40))]
    whole = build().eval()
    slide = build(test_cfg=dict(mode='slide', crop_size=(32, 32), stride=(16, 16))).eval()
    one_window = build(test_cfg=dict(mode='slide', crop_size=(48, 40), stride=(48, 40))).eval()
    with torch.no_grad():
        expected = whole.inference(x, [dict(m) for m in meta])
        assert torch.allclose(one_window.inference(x, [dict(m) for m in meta]), expected)
        scores = slide.inference(x, [dict(m) for m in meta])
    assert scores.shape == (1, K, 48, 40) and torch.isfinite(scores).all()
    assert not torch.allclose(scores, expected)


def test_loss_supervises_every_layer_and_reaches_the_backbone():
    model = build().train()
    losses = model.loss(torch.randn(2, 3, 32, 32), samples())
    prefixes = {key.rsplit('loss_', 1)[0] for key in losses}
    assert prefixes == {'', 'd0.', 'd1.'}  # before each of the 2 query blocks and the last
    sum(losses.values()).backward()
    assert model.network.backbone.blocks[0].attn.qkv.weight.grad.abs().sum() > 0
    assert model.backbone is model.network.backbone
    assert model.decode_head.num_classes == K and model.decode_head.ignore_index == 255


def test_with_cp_gives_the_same_loss_and_gradients():
    x, data = torch.randn(2, 3, 32, 32), samples()
    grads, calls = [], []
    for with_cp in (False, True):
        model = build(backbone=dict(with_cp=with_cp)).train()
        last = model.network.backbone.blocks[-1]
        count = []
        last.register_forward_pre_hook(lambda *_: count.append(1))
        torch.manual_seed(3)
        losses = model.loss(x.clone().requires_grad_(True), data)
        sum(losses.values()).backward()
        grads.append((sum(losses.values()).item(), model.network.query_embed.weight.grad))
        calls.append(len(count))
    assert calls == [1, 2]  # a checkpointed query block runs again in the backward pass
    assert grads[0][0] == pytest.approx(grads[1][0], rel=1e-5)
    assert torch.allclose(grads[0][1], grads[1][1], atol=1e-6)


def test_bf16_autocast_trains_and_predicts_close_to_fp32():
    model = build()
    x, data = torch.randn(2, 3, 32, 32), samples()
    with torch.autocast('cpu', dtype=torch.bfloat16):
        losses = model.train().loss(x, data)
    assert all(torch.isfinite(v) and v.dtype == torch.float32 for v in losses.values())
    sum(losses.values()).backward()
    model.eval()
    with torch.no_grad():
        ref = model.predict(x, samples())
        with torch.autocast('cpu', dtype=torch.bfloat16):
            low = model.predict(x, samples())
    diff = (ref[0].seg_logits.data - low[0].seg_logits.data.float()).abs().max()
    assert diff < 0.05


def test_bad_settings_are_named():
    with pytest.raises(ValueError, match='loss.type'):
        build(loss=dict(type='CrossEntropyLoss'))
    with pytest.raises(ValueError, match='num_queries'):
        build(num_queries=0)
    with pytest.raises(ValueError, match='size_divisor'):
        build().loss(torch.randn(1, 3, 30, 32), samples(1, (30, 32)))


def test_a_full_checkpoint_with_former_query_copy_names_loads_strictly():
    """``load_from`` of a segmentor saved when query copies were sibling modules
    (``network.backbone.blocks.N.query_norm1.weight``): the same weights come back, and a
    renamed key the model does not have is still named."""
    model = build(query_specialize=True)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.01 * torch.randn_like(p))
    former = with_former_query_names(model.state_dict())
    assert 'network.backbone.blocks.1.query_norm1.weight' in former
    fresh = build(query_specialize=True)
    assert load_state_dict_strict(fresh, former) == []
    for key, value in model.state_dict().items():
        assert torch.equal(fresh.state_dict()[key], value), key
    former['network.backbone.blocks.1.query_norm9.weight'] = torch.zeros(32)
    with pytest.raises(CheckpointError, match='query_norm9'):
        load_state_dict_strict(build(query_specialize=True), former)
