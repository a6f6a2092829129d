"""tools/test.py compares the test config with the training config saved in the checkpoint
(mmengine's meta.cfg): a difference that changes the model stops the test, naming the keys; one
that only training reads passes; test-time settings and test data are logged."""

import copy
import logging

import pytest
from mmengine.config import Config

from tests.tools.test_config_errors import DEMO
from tools.test import parse_args
from vitspec.config import saved as saved_config
from vitspec.config.saved import check_saved_config, other_model
from vitspec.errors import SavedConfigMismatch

TRAINED = Config.fromfile(DEMO)
CHECKPOINT = dict(meta=dict(cfg=TRAINED.pretty_text), state_dict={})


def the_trained_config_with(**changes) -> Config:
    cfg = copy.deepcopy(TRAINED)
    cfg.merge_from_dict(changes)
    return cfg


def logged_by(monkeypatch) -> list:
    logged = []
    monkeypatch.setattr(saved_config, 'print_log', lambda msg, **kw: logged.append((msg, kw)))
    return logged


def test_the_training_config_itself_passes(monkeypatch):
    logged = logged_by(monkeypatch)
    check_saved_config(CHECKPOINT, the_trained_config_with(), 'ck.pth')
    assert other_model(CHECKPOINT, the_trained_config_with()) == ''
    assert logged == []  # not one difference to note


def test_token_graying_on_a_plain_checkpoint_stops_naming_the_key():
    cfg = the_trained_config_with(**{'model.backbone.token_graying': dict(mode='svd')})
    with pytest.raises(SavedConfigMismatch, match='ck.pth') as info:
        check_saved_config(CHECKPOINT, cfg, 'ck.pth')
    assert "model.backbone.token_graying.mode: trained '<absent>', tested 'svd'" in str(info.value)
    assert '--no-config-check' in str(info.value)


@pytest.mark.parametrize(
    'key, value',
    [
        ('model.backbone.init_cfg', dict(type='Pretrained', checkpoint='other.pth')),
        ('model.backbone.drop_path_rate', 0.3),
        ('model.decode_head.loss_decode.loss_weight', 2.0),
        ('train_dataloader.batch_size', 1),
    ],
)
def test_keys_only_training_reads_pass(key, value, monkeypatch):
    logged = logged_by(monkeypatch)
    cfg = the_trained_config_with(**{key: value})
    check_saved_config(CHECKPOINT, cfg, 'ck.pth')
    assert other_model(CHECKPOINT, cfg) == ''
    assert logged == []  # nor a test-time difference


def test_test_time_settings_and_test_data_are_logged(monkeypatch):
    cfg = the_trained_config_with(
        **{
            'model.test_cfg.mode': 'slide',
            'test_dataloader.dataset.pipeline.2.scale': (64, 64),
            'test_dataloader.dataset.data_root': '/elsewhere',
        }
    )
    logged = logged_by(monkeypatch)
    check_saved_config(CHECKPOINT, cfg, 'ck.pth')
    [(text, kw)] = logged
    assert kw['level'] == logging.WARNING
    assert 'model.test_cfg.mode' in text and 'dataset.pipeline.2.scale' in text
    assert 'data_root' not in text  # where the test data lies may change


def test_a_checkpoint_without_a_training_config_is_not_compared(monkeypatch):
    logged = logged_by(monkeypatch)
    other = the_trained_config_with(**{'model.backbone.token_graying': dict(mode='svd')})
    check_saved_config(dict(state_dict={}), other, 'x.pth')
    assert [msg for msg, _ in logged] == [
        'x.pth holds no training config (meta.cfg): the test config is not compared with it'
    ]


def test_the_opt_out_flag():
    assert parse_args(['c.py', 'ck.pth', '--no-config-check']).no_config_check
    assert not parse_args(['c.py', 'ck.pth']).no_config_check
