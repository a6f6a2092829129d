"""The loader reads no model internals: it converts, drops source-only keys, hands the rest to
``model.filter_checkpoint`` (the model's own, timm's ``checkpoint_filter_fn`` pattern), checks
what comes back strictly and loads it. A stand-in with only state_dict, filter_checkpoint and
load_state_dict loads; SpecViT's filter resamples, drops and fills as the loader used to."""

import pytest
import torch

import vitspec.checkpoints.load as load
from vitspec.checkpoints.filtered import FilteredCheckpoint
from vitspec.errors import CheckpointError
from vitspec.models import SpecViT

PROTOCOL = {'state_dict', 'filter_checkpoint', 'load_state_dict'}


class StandIn:
    """A model with the loader's protocol only; records every attribute read from it."""

    def __init__(self, fill=True):
        object.__setattr__(self, 'read', [])
        object.__setattr__(self, 'fill', fill)
        object.__setattr__(self, 'loaded', None)

    def __getattribute__(self, name):
        if name not in ('read', 'fill', 'loaded', '__dict__', '__class__'):
            object.__getattribute__(self, 'read').append(name)
        return object.__getattribute__(self, name)

    def state_dict(self):
        return {'weight': torch.zeros(3), 'own': torch.zeros(1)}

    def filter_checkpoint(self, state_dict):
        sd = dict(state_dict, weight=state_dict['weight'] * 2)
        filled = ['own'] if self.fill else []
        sd.update({k: torch.ones(1) for k in filled})
        return FilteredCheckpoint(sd, filled, ['doubled: weight'])

    def load_state_dict(self, state_dict, strict, assign):
        object.__setattr__(self, 'loaded', state_dict)


def save(path, **sd):
    torch.save(dict(meta=dict(backbone_cfg=dict(x=1)), state_dict=sd), path)
    return str(path)


def test_a_stand_in_with_the_filter_only_loads(tmp_path, monkeypatch):
    logged = []
    monkeypatch.setattr(load, 'print_log', lambda msg, logger=None: logged.append(msg))
    model = StandIn()
    path = save(tmp_path / 'w.pth', weight=torch.ones(3), **{'head.weight': torch.ones(2)})
    loaded = load.load_pretrained(model, path)
    assert set(model.read) <= PROTOCOL, f'load.py read {set(model.read) - PROTOCOL}'
    assert loaded == load.Loaded(['own'], dict(x=1))
    assert sorted(model.loaded) == ['own', 'weight'] and model.loaded['weight'].tolist() == [2] * 3
    assert logged[:2] == [f'{path}: ignored source keys: head.weight', f'{path}: doubled: weight']


def test_what_the_filter_leaves_missing_is_refused(tmp_path):
    with pytest.raises(CheckpointError, match=r'missing keys \(1\): own'):
        load.load_pretrained(StandIn(fill=False), save(tmp_path / 'w.pth', weight=torch.ones(3)))


def test_specvit_filter_resamples_drops_and_fills():
    cfg = dict(img_size=32, patch_size=8, embed_dims=16, num_layers=2, num_heads=2)
    source = SpecViT(**dict(cfg, img_size=16)).state_dict()  # a 2x2 table and a CLS slot
    vitdet = SpecViT(**cfg, with_cls_token=False, pos_embed_cls=False)
    dropped = vitdet.filter_checkpoint(source)
    assert 'cls_token' not in dropped.state_dict and 'cls_token' in source  # input unchanged
    assert dropped.state_dict['pos_embed'].shape == vitdet.pos_embed.shape == (1, 16, 16)
    assert dropped.notes == [
        'dropped for a backbone without CLS token: cls_token, pos_embed[:, 0] (CLS slot)'
    ]
    specialized = SpecViT(**cfg, specialize=True)
    filled = specialized.filter_checkpoint(source)
    assert filled.state_dict['pos_embed'].shape == specialized.pos_embed.shape == (1, 17, 16)
    assert filled.filled and all('cls_' in k for k in filled.filled)
    norm = 'blocks.0.norm1.'
    assert torch.equal(filled.state_dict[norm + 'cls_weight'], source[norm + 'weight'])
