"""K frozen-backbone probes trained on the same batches: one backbone pass per batch, each
head's loss and backward in turn (its full-resolution logits freed before the next head's are
made), one optimizer step with a parameter group per head.

Each probe is the model its own single-probe config builds (an mmseg ``EncoderDecoder`` or
``DepthEstimator``) with a ``BackboneView`` in place of its backbone, so a head trains and
predicts with its own segmentor's code, exactly as in its single run.
"""

import copy
from collections import OrderedDict
from typing import Dict, List

import torch
from mmengine.model import BaseModel, ModuleDict
from mmseg.registry import MODELS
from torch import nn

from vitspec.errors import ConfigError

from ..shared_backbone import SharedBackbone
from .random_draws import DrawsFrom


def _without_outputs(backbone: dict) -> dict:
    return {k: v for k, v in backbone.items() if k != 'out_indices'}


def trained_parts(probe: nn.Module) -> List[nn.Module]:
    """What a probe trains: every part but its backbone and data preprocessor."""
    return [m for n, m in probe.named_children() if n not in ('backbone', 'data_preprocessor')]


@MODELS.register_module()
class ProbeGrid(BaseModel):
    """``probes``: head name -> the model dict of that head's single-probe config. Their
    backbones must be the same but for ``out_indices`` (the shared one computes the union).
    ``data_preprocessor``: the Runner's (a config's top-level one), else the first probe's."""

    def __init__(self, probes: Dict[str, dict], data_preprocessor=None, init_cfg=None):
        if not probes:
            raise ConfigError('ProbeGrid: no probes')
        first = next(iter(probes.values()))
        preprocessor = data_preprocessor or first.get('data_preprocessor')
        super().__init__(data_preprocessor=copy.deepcopy(preprocessor), init_cfg=init_cfg)
        backbone = first['backbone']
        for name, probe in probes.items():
            if _without_outputs(probe['backbone']) != _without_outputs(backbone):
                raise ConfigError(
                    f'ProbeGrid: head {name!r} has another backbone than the first head; a grid '
                    f'shares one backbone (only out_indices may differ)'
                )
        union = sorted({i for p in probes.values() for i in p['backbone'].get('out_indices', ())})
        self.backbone = MODELS.build(dict(backbone, out_indices=union))
        # registered as backbone; it remembers every window of a sliding-window pass for every
        # head, and forgets them after each step
        self.__dict__['shared'] = SharedBackbone(self.backbone, union, keep=1 << 16)
        self.probes = ModuleDict()  # mmengine's: init_weights reaches the heads
        for name, probe in probes.items():
            view = dict(
                type='BackboneView',
                shared=self.shared,
                out_indices=probe['backbone'].get('out_indices'),
                cls=probe['backbone'].get('output_cls_token'),
            )
            self.probes[name] = MODELS.build(dict(probe, backbone=view))

    @property
    def first_probe(self) -> nn.Module:
        return next(iter(self.probes.values()))

    def train_step(self, data, optim_wrapper) -> Dict[str, torch.Tensor]:
        with optim_wrapper.optim_context(self):
            data = self.data_preprocessor(data, True)
            inputs, samples = data['inputs'], data['data_samples']
            with torch.no_grad():
                self.shared(inputs)
        log_vars = OrderedDict()
        draws = DrawsFrom()  # where this step's seed put torch's generators

        def losses():
            for name, probe in self.probes.items():
                draws.replay()
                with optim_wrapper.optim_context(self):
                    loss, head_vars = probe.parse_losses(probe.loss(inputs, samples))
                log_vars.update((f'{name}.{k}', v) for k, v in head_vars.items())
                yield name, loss

        try:
            optim_wrapper.update_params_in_turn(losses())
        finally:
            self.shared.release()
        log_vars['loss'] = sum(v for k, v in log_vars.items() if k.endswith('.loss'))
        log_vars.move_to_end('loss', last=False)
        return log_vars

    def val_step(self, data) -> list:
        return self._predict_all(data)

    def test_step(self, data) -> list:
        return self._predict_all(data)

    def _predict_all(self, data) -> list:
        """The first head's predictions (what visualization hooks show), each carrying every
        head's as ``probe_grid``: head name -> that head's sample as a dict, without the class
        scores (the metrics need the labels; K full-size score maps would not fit)."""
        data = self.data_preprocessor(data, False)
        inputs, samples = data['inputs'], data['data_samples']
        per_head, first = {}, None
        try:
            for name, probe in self.probes.items():
                predicted = probe.predict(inputs, copy.deepcopy(samples))
                for sample in predicted:
                    sample.pop('seg_logits', None)  # freed before the next head's are made
                per_head[name] = [sample.to_dict() for sample in predicted]
                first = first or predicted
        finally:
            self.shared.release()
        for index, sample in enumerate(first):
            sample.set_field({name: out[index] for name, out in per_head.items()}, 'probe_grid')
        return first

    def forward(self, inputs, data_samples=None, mode='tensor'):
        raise ConfigError(
            'ProbeGrid runs through train_step / val_step / test_step (tools/train.py, '
            'tools/test.py); write the best head as its single-probe checkpoint to predict'
        )
