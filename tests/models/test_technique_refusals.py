"""Configurations that would measure nothing are refused with the reason: a frozen probe of a
technique whose parameters all come from a plain checkpoint, specialized LayerScale without
LayerScale, and a trainable backbone parameter that no loss reaches (CaiT's CLS token)."""

from types import SimpleNamespace

import pytest
import torch

from vitspec.checkpoints.load import load_state_dict_strict
from vitspec.engine import UnusedParameterCheckHook
from vitspec.errors import CheckpointError, InertProbeError, UnusedParameterError
from vitspec.models import SpecViT

TOY = dict(
    img_size=32,
    patch_size=8,
    embed_dims=32,
    num_layers=3,
    num_heads=2,
    layer_scale_init=1e-5,
    out_indices=(2,),
)


def save(path, model, backbone_cfg=None):
    meta = {} if backbone_cfg is None else dict(backbone_cfg=backbone_cfg)
    torch.save(dict(meta=meta, state_dict=model.state_dict()), path)
    return str(path)


def frozen(checkpoint, **kw):
    model = SpecViT(
        **TOY,
        frozen_stages=TOY['num_layers'],
        **kw,
        init_cfg=dict(type='Pretrained', checkpoint=checkpoint),
    )
    model.init_weights()
    return model


@pytest.mark.parametrize('specialize', [dict(), dict(qkv_blocks=None), dict(lora_rank=2)])
def test_frozen_specialized_probe_of_plain_checkpoint_is_refused(tmp_path, specialize):
    plain = save(tmp_path / 'plain.pth', SpecViT(**TOY))
    with pytest.raises(InertProbeError, match='plain backbone.s features'):
        frozen(plain, specialize=specialize)


def test_specialized_checkpoint_probes_and_plain_checkpoint_fine_tunes(tmp_path):
    pretrained = SpecViT(**TOY, specialize=dict())
    pretrained.init_weights()  # CLS copies drawn on their own: a specialized pretraining
    frozen(save(tmp_path / 'spec.pth', pretrained), specialize=dict())
    plain = save(tmp_path / 'plain.pth', SpecViT(**TOY))
    model = SpecViT(**TOY, specialize=dict(), init_cfg=dict(type='Pretrained', checkpoint=plain))
    model.init_weights()  # trainable: the copies start equal and then train apart
    assert model.blocks[0].norm1.cls_weight.requires_grad


def test_frozen_token_graying_needs_a_checkpoint_pretrained_with_it(tmp_path):
    tg = dict(mode='dct', eps=0.7)
    with pytest.raises(InertProbeError, match='Token Graying'):
        frozen(save(tmp_path / 'plain.pth', SpecViT(**TOY), dict(TOY)), token_graying=tg)
    frozen(save(tmp_path / 'tg.pth', SpecViT(**TOY), dict(TOY, token_graying=tg)), token_graying=tg)


def test_specialized_layer_scale_without_layer_scale_is_refused():
    no_ls = dict(TOY, layer_scale_init=None)
    with pytest.raises(ValueError, match='needs a backbone with LayerScale'):
        SpecViT(**no_ls, specialize=dict(layer_scale=True))
    model = SpecViT(**no_ls, specialize=dict())  # default: follow the backbone
    assert not any('ls1' in n for n, _ in model.named_parameters())
    assert any(
        'cls_' in n
        for n, _ in SpecViT(**TOY, specialize=dict()).blocks[0].ls1.named_parameters(prefix='ls1')
    )


def run_first_iteration(backbone, loss_of):
    hook = UnusedParameterCheckHook()
    runner = SimpleNamespace(model=SimpleNamespace(backbone=backbone), iter=0)
    hook.before_train(runner)
    loss_of(backbone).backward()
    hook.after_train_iter(runner, 0)


def test_cait_backbone_trains_no_unused_parameter():
    cait = SpecViT(**dict(TOY, pos_embed_cls=False), num_class_attn_layers=2, talking_heads=True)
    assert not cait.cls_token.requires_grad
    run_first_iteration(cait, lambda m: m(torch.randn(1, 3, 32, 32))[0].sum())


def test_a_trainable_parameter_without_gradient_is_named():
    model = SpecViT(**TOY)
    with pytest.raises(UnusedParameterError, match='cls_token'):
        # a dense loss that never reaches the CLS token: the patch map of block 0 only
        run_first_iteration(
            model,
            lambda m: (
                m.patch_embed(torch.randn(1, 3, 32, 32))[0].sum()
                + (
                    m.pos_embed.sum()
                    + sum(p.sum() for p in m.blocks.parameters())
                    + m.norm.weight.sum()
                    + m.norm.bias.sum()
                )
            ),
        )


def test_missing_layer_scales_are_filled_only_where_they_change_nothing():
    """MAE's segmentation recipe adds LayerScale at 1.0 to a checkpoint without it: the loaded
    network computes the same. At any other init a missing gamma is an error."""
    plain = SpecViT(**dict(TOY, layer_scale_init=None))
    plain.init_weights()
    x = torch.randn(1, 3, 32, 32)
    with_ls = SpecViT(**dict(TOY, layer_scale_init=1.0)).eval()
    filled = load_state_dict_strict(with_ls, plain.state_dict())
    assert sorted(filled) == sorted(f'blocks.{i}.ls{j}.gamma' for i in range(3) for j in (1, 2))
    torch.testing.assert_close(with_ls(x)[0], plain.eval()(x)[0])
    with pytest.raises(CheckpointError, match='ls1.gamma'):
        load_state_dict_strict(SpecViT(**TOY), plain.state_dict())
