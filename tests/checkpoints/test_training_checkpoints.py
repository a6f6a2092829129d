"""The files training scripts write convert without any opt-in; code in a pickle never runs.

Each layout is written as its script writes it (the same dict, an ``argparse.Namespace`` as
``args``, real optimizer / scaler / scheduler states), with toy weights from timm.
"""

import argparse
import logging
import os
import pathlib
import subprocess
import sys

import pytest
import timm
import torch
import torch.distributed.checkpoint as dcp
from mmengine.logging import MMLogger
from mmengine.runner import CheckpointLoader
from timm.scheduler import CosineLRScheduler
from timm.utils import CheckpointSaver, ModelEmaV3

from tests.checkpoints.dinov3_layouts import release_layout, timm_dinov3
from tests.utils import ROOT
from vitspec.checkpoints.containers import pick_weights
from vitspec.checkpoints.convert import convert_checkpoint
from vitspec.conversion.checkpoint import convert_file
from vitspec.errors import CheckpointError
from vitspec.fileio import safe_torch_load, using_safe_io
from vitspec.fileio.trusted_pickle import TRUST_ENV
from vitspec.models import SpecViT


def toy(name, seed=0, **kwargs):
    torch.manual_seed(seed)
    model = timm.create_model(name, pretrained=False, num_classes=10, **kwargs)
    with torch.no_grad():
        for pname, p in model.named_parameters():
            p.add_(torch.randn_like(p) * (0.3 if 'gamma' in pname else 0.02))
    return model.eval()


def toy_vit(seed=0):
    return toy('vit_tiny_patch16_224', seed, img_size=32, depth=2)


def optimizer_state(model):
    """An AdamW state after one step, as every script saves it (tensors, floats, tuples)."""
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95))
    model(torch.randn(1, 3, *model.patch_embed.img_size)).sum().backward()
    opt.step()
    model.zero_grad()
    return opt


def scaler_state():
    return torch.amp.GradScaler('cpu').state_dict()


def assert_same_features(ref, dst, size, last):
    """The converted file rebuilds ``ref`` through init_cfg, as a config would use it."""
    cfg = safe_torch_load(str(dst))['meta']['backbone_cfg']
    model = SpecViT(
        **cfg, out_indices=(last,), init_cfg=dict(type='Pretrained', checkpoint=str(dst))
    )
    model.init_weights()
    x = torch.randn(1, 3, size, size)
    with torch.no_grad():
        expected = ref.forward_intermediates(x, indices=[last], norm=True, intermediates_only=True)[
            0
        ]
        assert (model.eval()(x)[0] - expected).abs().max() <= 1e-4


def mae_args():
    # facebookresearch/mae main_pretrain.py: its parser's values after init_distributed_mode
    return argparse.Namespace(
        batch_size=64,
        epochs=800,
        accum_iter=1,
        model='mae_vit_base_patch16',
        input_size=224,
        mask_ratio=0.75,
        norm_pix_loss=True,
        weight_decay=0.05,
        lr=None,
        blr=1.5e-4,
        output_dir='./output_dir',
        log_dir='./output_dir',
        device='cuda',
        seed=0,
        resume='',
        start_epoch=0,
        world_size=8,
        distributed=True,
        dist_url='env://',
        rank=0,
        gpu=0,
        dist_backend='nccl',
    )


def write_mae(path, model):
    """facebookresearch/mae util/misc.py save_model: the pre-training model adds the decoder
    and mask token to the encoder's timm names."""
    sd = {k: v for k, v in model.state_dict().items() if not k.startswith('head.')}
    sd.update(
        mask_token=torch.zeros(1, 1, 128),
        **{'decoder_embed.weight': torch.randn(128, 192), 'decoder_norm.weight': torch.ones(128)},
    )
    torch.save(
        {
            'model': sd,
            'optimizer': optimizer_state(model).state_dict(),
            'epoch': 799,
            'scaler': scaler_state(),
            'args': mae_args(),
        },
        path,
    )


@pytest.mark.slow
def test_mae_training_checkpoint_converts_as_a_new_user_would(tmp_path):
    ref = toy_vit()
    src = tmp_path / 'checkpoint-799.pth'
    write_mae(src, ref)
    dst = tmp_path / 'vit-ti16_mae.pth'
    proc = subprocess.run(
        [sys.executable, str(ROOT / 'tools/convert_checkpoint.py'), src, dst, '--format', 'mae'],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "weights taken from checkpoint['model']" in proc.stdout
    assert 'WARNING' not in proc.stdout + proc.stderr
    assert_same_features(ref, dst, 32, 1)


def test_mae_training_checkpoint_as_init_cfg_and_load_from(tmp_path):
    ref = toy_vit()
    src = tmp_path / 'checkpoint-799.pth'
    write_mae(src, ref)
    _, cfg = convert_checkpoint(safe_torch_load(str(src)), 'mae')
    model = SpecViT(**cfg, out_indices=(1,), init_cfg=dict(type='Pretrained', checkpoint=str(src)))
    model.init_weights()  # the decoder and mask token are dropped as source-only keys
    x = torch.randn(1, 3, 32, 32)
    with torch.no_grad():
        expected = ref.forward_intermediates(x, indices=[1], norm=True, intermediates_only=True)
        assert (model.eval()(x)[0] - expected[0]).abs().max() <= 1e-4
    with using_safe_io():  # what load_from / resume read through
        checkpoint = CheckpointLoader.load_checkpoint(str(src), map_location='cpu')
    assert checkpoint['args'].model == 'mae_vit_base_patch16' and checkpoint['epoch'] == 799


def write_deit(path, model, ema):
    """facebookresearch/deit main.py: the trained model, its timm EMA, timm's scheduler."""
    opt = optimizer_state(model)
    scheduler = CosineLRScheduler(opt, t_initial=300, lr_min=1e-5, warmup_t=5, warmup_lr_init=1e-6)
    args = argparse.Namespace(
        model='cait_xxs24_224', batch_size=64, epochs=300, model_ema=True, model_ema_decay=0.99996
    )
    args.nb_classes = 1000
    torch.save(
        {
            'model': model.state_dict(),
            'optimizer': opt.state_dict(),
            'lr_scheduler': scheduler.state_dict(),
            'epoch': 299,
            'model_ema': ema.state_dict(),
            'scaler': scaler_state(),
            'args': args,
        },
        path,
    )


def toy_cait(seed):
    return toy('cait_xxs24_224', seed, img_size=32, depth=2, depth_token_only=1)


@pytest.mark.parametrize('use_ema', [False, True])
def test_deit_cait_training_checkpoint(tmp_path, use_ema):
    trained, ema = toy_cait(0), toy_cait(1)
    src = tmp_path / 'checkpoint.pth'
    write_deit(src, trained, ema)
    dst = tmp_path / 'cait.pth'
    cfg = convert_file(str(src), str(dst), 'cait', use_ema=use_ema)
    assert (cfg['num_layers'], cfg['num_class_attn_layers'], cfg['talking_heads']) == (2, 1, True)
    assert_same_features(ema if use_ema else trained, dst, 32, 1)


def test_timm_train_output_with_ema(tmp_path):
    """Written by timm's own CheckpointSaver (timm/utils/checkpoint_saver.py), as train.py
    does; the trained weights by default, the EMA weights with use_ema."""
    model = toy_vit(0)
    opt = optimizer_state(model)
    ema = ModelEmaV3(model, decay=0.9)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.02)  # the EMA lags behind the trained weights
    args = argparse.Namespace(model='vit_tiny_patch16_224', device='cuda:0', lr=5e-4, epochs=300)
    args.output = str(tmp_path)
    saver = CheckpointSaver(model, opt, args=args, model_ema=ema, checkpoint_dir=str(tmp_path))
    saver.save_checkpoint(epoch=0, metric=71.5)
    src = tmp_path / 'model_best.pth.tar'
    assert src.exists()
    assert set(safe_torch_load(str(src))) >= {'state_dict', 'state_dict_ema', 'args', 'metric'}
    for use_ema, ref in ((False, model), (True, ema.module.eval())):
        dst = tmp_path / f'converted_{use_ema}.pth'
        convert_file(str(src), str(dst), 'timm', use_ema=use_ema)
        assert_same_features(ref, dst, 32, 1)


def dinov2_names(sd, chunks):
    """facebookresearch/dinov2 training names: blocks in BlockChunks (blocks.<chunk>.<index>,
    the index global), register_tokens, mask_token."""
    depth = 1 + max(int(k.split('.')[1]) for k in sd if k.startswith('blocks.'))
    per_chunk = depth // chunks
    out = {'mask_token': torch.zeros(1, sd['cls_token'].shape[-1])}
    for k, v in sd.items():
        if k.startswith('blocks.'):
            index = int(k.split('.')[1])
            k = f'blocks.{index // per_chunk}.{k[len("blocks.") :]}'
        out[k.replace('reg_token', 'register_tokens')] = v
    return out


def dino_heads(prefix):
    return {
        f'{prefix}dino_head.mlp.0.weight': torch.randn(64, 192),
        f'{prefix}dino_head.last_layer.weight_g': torch.ones(256, 1),
        f'{prefix}ibot_head.mlp.0.weight': torch.randn(64, 192),
    }


def toy_dinov2(seed):
    return toy(
        'vit_small_patch14_dinov2',
        seed,
        img_size=28,
        depth=4,
        embed_dim=192,
        num_heads=3,
    )


def test_dinov2_eval_teacher_checkpoint(tmp_path):
    """dinov2/train/train.py do_test: eval/<iteration>/teacher_checkpoint.pth."""
    teacher = toy_dinov2(0)
    sd = {f'backbone.{k}': v for k, v in dinov2_names(teacher.state_dict(), 2).items()}
    assert 'backbone.blocks.1.3.attn.qkv.weight' in sd
    src = tmp_path / 'teacher_checkpoint.pth'
    torch.save({'teacher': {**sd, **dino_heads('')}}, src)
    dst = tmp_path / 'vit-s14_own.pth'
    assert convert_file(str(src), str(dst), 'dinov2')['num_layers'] == 4
    assert_same_features(teacher, dst, 28, 3)


@pytest.mark.parametrize('branch', ['teacher', 'student'])
def test_dino_whole_model_checkpoint_with_teacher_and_student(tmp_path, branch):
    """The whole self-distillation model under 'model' (fvcore's Checkpointer layout, as
    DINOv2's trainer saves it): student and teacher side by side, DDP and compile wrappers."""
    nets = dict(student=toy_dinov2(0), teacher=toy_dinov2(1))
    sd = {}
    for name, net in nets.items():
        for k, v in dinov2_names(net.state_dict(), 2).items():
            sd[f'module.{name}.backbone._orig_mod.{k}'] = v
        sd.update(dino_heads(f'module.{name}.'))
    src = tmp_path / 'model_0012499.pth'
    opt = optimizer_state(toy_dinov2(2))
    torch.save({'model': sd, 'optimizer': opt.state_dict(), 'iteration': 12499}, src)
    dst = tmp_path / f'{branch}.pth'
    convert_file(str(src), str(dst), 'dinov2', branch=branch)
    assert_same_features(nets[branch], dst, 28, 3)


def test_dinov3_teacher_is_also_named_model_ema():
    """DINOv3's SSLMetaArch names the teacher twice (teacher and model_ema) and keeps a Gram
    teacher: the teacher is picked, the student on request."""
    w = {n: torch.full((1,), float(i)) for i, n in enumerate(('t', 's', 'g'))}
    sd = {
        'teacher.backbone.cls_token': w['t'],
        'model_ema.backbone.cls_token': w['t'],
        'student.backbone.cls_token': w['s'],
        'gram_teacher.backbone.cls_token': w['g'],
    }
    picked = pick_weights({'model': sd, 'iteration': 3})
    assert picked.state_dict == {'cls_token': w['t']}
    assert picked.where == "checkpoint['model'] teacher.*"
    ema_only = {k: v for k, v in sd.items() if not k.startswith('teacher.')}
    assert pick_weights({'model': ema_only}).state_dict == {'cls_token': w['t']}
    assert pick_weights({'model': sd}, branch='student').state_dict == {'cls_token': w['s']}


def test_asking_for_what_is_not_there_names_what_is():
    with pytest.raises(CheckpointError, match=r'EMA weights .* it holds: model, args'):
        pick_weights({'model': {'w': torch.ones(1)}, 'args': argparse.Namespace()}, use_ema=True)
    with pytest.raises(
        CheckpointError, match=r'under state_dict, model, module, student\); .*: teacher'
    ):
        pick_weights({'teacher': {'backbone.w': torch.ones(1)}}, branch='student')
    with pytest.raises(CheckpointError, match=r'holds the networks teacher\.\* but no student'):
        pick_weights({'model': {'teacher.backbone.w': torch.ones(1)}}, branch='student')


def test_paths_and_numpy1_names_in_args_load_as_plain_data(tmp_path):
    args = argparse.Namespace(output_dir=pathlib.PosixPath('/runs/mae'), log=pathlib.Path('x'))
    path = tmp_path / 'ck.pth'
    torch.save({'model': {'w': torch.ones(1)}, 'args': args}, path)
    loaded = safe_torch_load(str(path))['args']
    assert loaded.output_dir == pathlib.PurePosixPath('/runs/mae')
    assert type(loaded.output_dir) is pathlib.PurePosixPath  # no file-system access possible


# ---- what must stay refused ----


def mark(marker):
    pathlib.Path(marker).write_text('ran')


class RunsCode:
    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (mark, (self.marker,))


class ShellOut:
    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (os.system, (f'touch {self.marker}',))


@pytest.mark.parametrize('evil', [RunsCode, ShellOut])
def test_code_hidden_in_args_is_refused_and_never_runs(tmp_path, evil):
    marker = tmp_path / 'was_executed'
    args = mae_args()
    args.hook = evil(marker)  # a plausible-looking training checkpoint with a payload
    src = tmp_path / 'checkpoint-799.pth'
    torch.save({'model': toy_vit().state_dict(), 'epoch': 799, 'args': args}, src)
    with pytest.raises(CheckpointError, match='not allowed: .*Refusing to load it') as info:
        convert_file(str(src), str(tmp_path / 'dst.pth'), 'mae')
    assert '--trust-pickle' in str(info.value)
    with pytest.raises(CheckpointError, match='not allowed'):
        SpecViT(
            img_size=32,
            patch_size=16,
            embed_dims=192,
            num_layers=2,
            num_heads=3,
            init_cfg=dict(type='Pretrained', checkpoint=str(src)),
        ).init_weights()
    with using_safe_io(), pytest.raises(CheckpointError, match='not allowed'):
        CheckpointLoader.load_checkpoint(str(src), map_location='cpu')
    assert not marker.exists() and not (tmp_path / 'dst.pth').exists()


def test_trusting_another_file_does_not_trust_this_one(tmp_path, monkeypatch):
    marker = tmp_path / 'was_executed'
    path = tmp_path / 'evil.pth'
    torch.save({'x': RunsCode(marker)}, path)
    monkeypatch.setenv(TRUST_ENV, os.pathsep.join([str(tmp_path / 'mine.pth'), '']))
    with pytest.raises(CheckpointError, match='not allowed'):
        safe_torch_load(str(path))
    assert not marker.exists()


# ---- the explicit opt-in ----


class RunRecord:
    """A harmless class of the user's own that the allow-list does not know."""

    def __init__(self, note):
        self.note = note


@pytest.fixture
def warnings_logged():
    records = []
    handler = logging.Handler(level=logging.WARNING)
    handler.emit = records.append
    logger = MMLogger.get_current_instance()
    logger.addHandler(handler)
    yield records
    logger.removeHandler(handler)


def test_opt_in_loads_an_unknown_harmless_class_and_warns(tmp_path, monkeypatch, warnings_logged):
    ref = toy_vit()
    src = tmp_path / 'my_run.pth'
    torch.save({'model': ref.state_dict(), 'record': RunRecord('lr sweep 3')}, src)
    with pytest.raises(CheckpointError, match=r'not allowed: .*RunRecord'):
        safe_torch_load(str(src))
    assert not warnings_logged  # refusing is silent: it is an error

    loaded = safe_torch_load(str(src), trust_pickle=True)
    assert loaded['record'].note == 'lr sweep 3'
    (record,) = warnings_logged
    assert record.levelno == logging.WARNING
    assert str(src) in record.getMessage() and 'WILL RUN any code' in record.getMessage()

    dst = tmp_path / 'converted.pth'
    convert_file(str(src), str(dst), 'timm', trust_pickle=True)
    assert_same_features(ref, dst, 32, 1)

    monkeypatch.setenv(TRUST_ENV, str(src))  # for load_from / init_cfg, read by mmengine
    with using_safe_io():
        assert CheckpointLoader.load_checkpoint(str(src))['record'].note == 'lr sweep 3'
    assert len(warnings_logged) == 3


def test_dinov3_eval_teacher_checkpoint(tmp_path):
    """dinov3/train/train.py do_test: eval/<iteration>/teacher_checkpoint.pth holds the
    teacher (model_ema) with its heads, the backbone in DINOv3's own names."""
    ref = timm_dinov3('vit_small_patch16_dinov3', depth=2)
    sd = {f'backbone.{k}': v for k, v in release_layout(ref).items()}
    src = tmp_path / 'teacher_checkpoint.pth'
    torch.save({'teacher': {**sd, **dino_heads('')}}, src)
    dst = tmp_path / 'vit-s16_dinov3_own.pth'
    cfg = convert_file(str(src), str(dst), 'dinov3')
    model = SpecViT(**cfg, out_indices=(1,), init_cfg=dict(type='Pretrained', checkpoint=str(dst)))
    model.init_weights()
    x = torch.randn(1, 3, 64, 48)
    with torch.no_grad():
        expected = ref.forward_intermediates(x, indices=[1], norm=True, intermediates_only=True)
        assert (model.eval()(x)[0] - expected[0]).abs().max() <= 1e-4


def test_dinov3_distributed_checkpoint_folder_says_what_to_convert(tmp_path):
    """DINOv3's periodic checkpoints are torch.distributed.checkpoint folders, whose .metadata
    is a plain pickle: refused, pointing at the teacher file training also writes."""
    folder = tmp_path / 'ckpt' / '199'
    dcp.save({'iteration': 199, 'model': toy_vit().state_dict()}, checkpoint_id=str(folder))
    assert (folder / '.metadata').is_file()
    with pytest.raises(CheckpointError, match=r'torch\.distributed\.checkpoint folder .*'):
        convert_file(str(folder), str(tmp_path / 'dst.pth'), 'dinov3')
    with pytest.raises(CheckpointError, match=r'eval/<iteration>/teacher_checkpoint\.pth'):
        safe_torch_load(str(folder))
