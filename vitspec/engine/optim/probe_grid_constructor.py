"""The optimizer of a probe grid: each head's parameter groups built by its own single-probe
config's constructor and optimizer settings (learning rate, weight decay, layer-wise rules),
then held by one optimizer, so one step updates every head as its single run's step would.

A scheduler scales each group's own initial learning rate, so every head follows its single
run's schedule, and each head's gradients are clipped on their own (FiniteLossMixin._clip_grad)."""

import copy

from mmengine.model import is_model_wrapper
from mmengine.optim import DefaultOptimWrapperConstructor
from mmengine.registry import OPTIM_WRAPPER_CONSTRUCTORS, OPTIM_WRAPPERS

from vitspec.errors import ConfigError


@OPTIM_WRAPPER_CONSTRUCTORS.register_module()
class ProbeGridOptimWrapperConstructor:
    """``optim_wrapper_cfg['probes']``: head name -> the ``optim_wrapper`` of that head's
    single-probe config; the rest of ``optim_wrapper_cfg`` builds the one wrapper."""

    def __init__(self, optim_wrapper_cfg: dict, paramwise_cfg: dict = None):
        cfg = copy.deepcopy(dict(optim_wrapper_cfg))
        self.probes = cfg.pop('probes', None)
        if not self.probes:
            raise ConfigError('ProbeGridOptimWrapperConstructor: optim_wrapper.probes is empty')
        cfg.pop('optimizer', None)
        self.wrapper_cfg = cfg

    def __call__(self, model):
        model = model.module if is_model_wrapper(model) else model
        groups, kinds = [], set()
        for name, probe_cfg in self.probes.items():
            probe_cfg = copy.deepcopy(dict(probe_cfg))
            constructor = OPTIM_WRAPPER_CONSTRUCTORS.build(
                dict(
                    type=probe_cfg.pop('constructor', DefaultOptimWrapperConstructor.__name__),
                    paramwise_cfg=probe_cfg.pop('paramwise_cfg', None),
                    optim_wrapper_cfg=probe_cfg,
                )
            )
            optimizer = constructor(model.probes[name]).optimizer
            kinds.add(type(optimizer))
            groups += [dict(group, probe=name) for group in optimizer.param_groups]
        if len(kinds) > 1:
            raise ConfigError(
                f'a probe grid holds its heads in one optimizer; its heads use '
                f'{sorted(k.__name__ for k in kinds)}'
            )
        (kind,) = kinds
        return OPTIM_WRAPPERS.build(dict(self.wrapper_cfg, optimizer=kind(groups)))
