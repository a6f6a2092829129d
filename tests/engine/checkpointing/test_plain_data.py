"""Checkpoints as plain data: what the CheckedRunner writes loads with a weights-only
``torch.load`` and no allow-list, and a resume makes the message hub again exactly as the
interrupted run saved it; a checkpoint written before, with mmengine's objects, still resumes."""

import copy
from collections import OrderedDict

import numpy as np
import pytest
import torch
from mmengine.hooks import Hook
from mmengine.logging import HistoryBuffer
from mmengine.model import BaseModel
from mmengine.runner import Runner, checkpoint

import vitspec.engine  # noqa: F401  registers SafeIOHook
from tests.utils import ones_loader
from vitspec.engine import CheckedRunner
from vitspec.engine.checkpointing.plain_data import (
    TYPE_KEY,
    from_plain_data,
    restore_objects,
    store_as_plain_data,
    to_plain_data,
)


def buffer(values, counts, max_length=5):
    history = HistoryBuffer(max_length=max_length)
    for value, count in zip(values, counts):
        history.update(value, count)
    return history


def same(a, b) -> bool:
    """Equal values of the same types, numpy dtypes and HistoryBuffer contents included."""
    if type(a) is not type(b):
        return False
    if isinstance(a, HistoryBuffer):
        return a.max_length == b.max_length and all(map(same, a.data, b.data))
    if isinstance(a, (np.ndarray, np.generic)):
        return a.dtype == b.dtype and np.shape(a) == np.shape(b) and np.array_equal(a, b)
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(map(same, a, b))
    if torch.is_tensor(a):
        return a.dtype == b.dtype and a.equal(b)
    return a == b


def test_objects_round_trip_through_a_weights_only_load(tmp_path):
    hub = dict(
        log_scalars=OrderedDict(loss=buffer([0.5, 1.25, 3.0, 2.0, 1.0, 7.5], [1, 2, 1, 1, 1, 4])),
        runtime_info=OrderedDict(
            eta=np.float64(12.5),
            count=np.int32(3),
            flag=np.bool_(True),
            table=np.arange(6, dtype=np.float32).reshape(2, 3),
            names=np.array(['wall', 'floor']),
            pair=(np.int64(1), 'x'),
            nested=[(np.uint8(7), {'deep': np.zeros((0, 2), dtype=np.int16)})],
        ),
        resumed_keys=dict(loss=True, eta=True),
    )
    saved = dict(message_hub=copy.deepcopy(hub), state_dict=OrderedDict(w=torch.ones(2)))
    store_as_plain_data(saved)
    torch.save(saved, tmp_path / 'plain.pth')
    assert torch.serialization.get_unsafe_globals_in_checkpoint(str(tmp_path / 'plain.pth')) == []
    loaded = torch.load(tmp_path / 'plain.pth', weights_only=True)
    assert loaded['message_hub']['log_scalars']['loss'][TYPE_KEY] == 'mmengine.HistoryBuffer'
    restore_objects(loaded)
    assert same(loaded['message_hub'], hub)
    restored = loaded['message_hub']['log_scalars']['loss']
    assert restored.max_length == 5 and restored.mean(2) == pytest.approx((1.0 + 7.5) / 5)
    restored.update(9.0)  # a restored buffer keeps its length limit
    assert list(restored.data[0]) == [3.0, 2.0, 1.0, 7.5, 9.0]


def test_what_holds_no_object_stays_the_same_object():
    state = OrderedDict(w=torch.ones(2))
    state._metadata = OrderedDict({'': {'version': 1}})
    optimizer = dict(state={}, param_groups=[dict(lr=0.1, betas=(0.9, 0.99), params=[0])])
    for value in (state, optimizer, 'text', None, [1, (2.0, 'x')]):
        assert to_plain_data(value) is value
        assert from_plain_data(value) is value
    meta = dict(state_dict=state, eta=np.float64(1.0))
    plain = to_plain_data(meta)
    assert plain['state_dict'] is state and plain is not meta and type(meta['eta']) is np.float64


def test_a_state_dict_with_a_numpy_value_keeps_its_type_and_metadata():
    state = OrderedDict(w=torch.ones(2), step=np.int64(4))
    state._metadata = OrderedDict({'': {'version': 2}})
    plain = to_plain_data(state)
    assert type(plain) is OrderedDict and plain._metadata == state._metadata
    assert isinstance(plain['step'], dict) and plain['w'] is state['w']
    assert same(from_plain_data(plain), state)


def test_an_unknown_tag_is_an_error():
    with pytest.raises(ValueError, match='unknown'):
        from_plain_data({TYPE_KEY: 'numpy.matrix', 'data': [1]})


class Linear(BaseModel):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(2))

    def forward(self, inputs, mode='tensor'):
        return dict(loss=((self.w * inputs).sum() - 1) ** 2)


class RecordHub(Hook):
    """The message hub the run saves (its objects, as the hooks see them) and the one it
    trains on after loading (resume)."""

    def before_save_checkpoint(self, runner, checkpoint):
        runner.saved_hubs[runner.iter + 1] = copy.deepcopy(checkpoint['message_hub'])

    def before_train(self, runner):
        runner.hub_at_start = copy.deepcopy(runner.message_hub.state_dict())


def runner(work_dir, max_iters, runner_class=CheckedRunner, **kwargs):
    run = runner_class(
        model=Linear(),
        work_dir=str(work_dir),
        train_dataloader=ones_loader(4),
        optim_wrapper=dict(optimizer=dict(type='SGD', lr=0.01)),
        param_scheduler=dict(type='LinearLR', start_factor=0.5, by_epoch=False, end=4),
        train_cfg=dict(by_epoch=False, max_iters=max_iters),
        default_hooks=dict(checkpoint=dict(type='CheckpointHook', interval=2, by_epoch=False)),
        custom_hooks=[dict(type='SafeIOHook'), RecordHub()],
        experiment_name='-'.join(work_dir.parts[-2:]),  # one message hub per run
        randomness=dict(seed=3),
        **kwargs,
    )
    run.saved_hubs = {}
    return run


# clocks, and the work dir's name
TIMED = ('train/time', 'train/data_time', 'eta', 'last_ckpt', 'experiment_name')


def without_timing(hub: dict) -> dict:
    return {
        part: {k: v for k, v in values.items() if k not in TIMED}
        for part, values in hub.items()
        if part != 'resumed_keys'
    }


def test_resume_restores_the_saved_message_hub_and_ends_as_the_uninterrupted_run(tmp_path):
    uninterrupted = runner(tmp_path / 'a', 4)
    uninterrupted.train()
    interrupted = runner(tmp_path / 'b', 2)
    interrupted.train()
    saved = tmp_path / 'b' / 'iter_2.pth'
    plain = torch.load(saved, weights_only=True)  # no allow-list
    assert plain['message_hub']['log_scalars']['train/loss'][TYPE_KEY] == 'mmengine.HistoryBuffer'
    assert checkpoint.load_from_local(str(saved), map_location='cpu')['meta']['iter'] == 2

    resumed = runner(tmp_path / 'c', 4, load_from=str(saved), resume=True)
    resumed.train()
    at_save = interrupted.saved_hubs[2]
    assert type(at_save['runtime_info']['eta']) is np.float64
    assert same(resumed.hub_at_start['log_scalars'], at_save['log_scalars'])
    restored_info = dict(resumed.hub_at_start['runtime_info'])
    assert (restored_info.pop('iter'), restored_info.pop('max_iters')) == (2, 4)  # the loop's own
    assert same(
        restored_info, {k: v for k, v in at_save['runtime_info'].items() if 'iter' not in k}
    )
    end, expected = resumed.message_hub.state_dict(), uninterrupted.message_hub.state_dict()
    assert same(without_timing(end), without_timing(expected))
    assert end['log_scalars']['train/loss'].data[0].size == 4
    assert end['runtime_info']['experiment_name'] == at_save['runtime_info']['experiment_name']
    assert resumed.model.w.equal(uninterrupted.model.w)


def test_a_checkpoint_with_mmengines_objects_still_resumes(tmp_path):
    """Written by a plain mmengine Runner, as vitspec's runs wrote them before."""
    runner(tmp_path / 'old', 2, runner_class=Runner).train()
    old = tmp_path / 'old' / 'iter_2.pth'
    assert 'mmengine.logging.history_buffer.HistoryBuffer' in (
        torch.serialization.get_unsafe_globals_in_checkpoint(str(old))
    )
    resumed = runner(tmp_path / 'new', 4, load_from=str(old), resume=True)
    resumed.train()
    assert resumed.iter == 4
    loss = resumed.message_hub.get_scalar('train/loss')
    assert type(loss) is HistoryBuffer and loss.data[0].size == 4
    assert (
        torch.serialization.get_unsafe_globals_in_checkpoint(str(tmp_path / 'new' / 'iter_4.pth'))
        == []
    )
