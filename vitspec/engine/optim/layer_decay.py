"""Layer-wise learning-rate decay for any backbone that reports its own layer depths.

mmseg's LearningRateDecayOptimizerConstructor picks its rules by the backbone's class name and
mmseg's ``layers.N`` naming; this one asks ``backbone.get_layer_depth(name, prefix)`` instead.
"""

import re
from typing import List

from mmengine.logging import print_log
from mmengine.optim import DefaultOptimWrapperConstructor
from mmengine.registry import OPTIM_WRAPPER_CONSTRUCTORS
from torch import nn

from vitspec.errors import ConfigError, ConfigKeyError

from .no_decay import no_decay_parameters


@OPTIM_WRAPPER_CONSTRUCTORS.register_module()
class LayerDecayOptimWrapperConstructor(DefaultOptimWrapperConstructor):
    """AdamW-style parameter groups with ``lr * decay_rate ** (num_depths - 1 - depth)``.

    ``paramwise_cfg``: ``decay_rate`` (1.0: no decay across layers) and ``backbone``, the
    attribute of the model holding the backbone ('backbone'; a dotted path such as
    'network.backbone' for EoMT, whose parameters are named by that path; a path given but
    not found is an error). The depth of each backbone
    parameter comes from ``backbone.get_layer_depth(full_name, prefix)`` -> (depth, num_depths);
    everything outside the backbone (neck, heads) gets the top depth, i.e. the base lr.
    Norms, biases, position embeddings, CLS/register tokens and LayerScale gammas get no weight
    decay (see ``no_decay_parameters``); ``no_decay_regex`` replaces that rule by a published
    one: exactly the parameters whose full name it matches get no weight decay. ``lr_mults``
    ({regex: factor}) multiplies the lr of the parameters whose full name a regex matches (the
    first that does), as detectron2's ``lr_factor_func``. Parameters
    that do not require grad (a frozen backbone) are left out of the optimizer entirely, so
    they carry no optimizer state.
    Any other ``paramwise_cfg`` key (``custom_keys``, ``norm_decay_mult``, ... of mmengine's
    default constructor) is an error: these groups would silently ignore it.
    Registered in mmengine's root registry: reachable from mmseg and mmdet configs alike.
    """

    PARAMWISE_KEYS = ('backbone', 'decay_rate', 'lr_mults', 'no_decay_regex')

    def __init__(self, optim_wrapper_cfg: dict, paramwise_cfg: dict = None):
        unknown = sorted(set(paramwise_cfg or {}) - set(self.PARAMWISE_KEYS))
        if unknown:
            raise ConfigKeyError(
                f'LayerDecayOptimWrapperConstructor: unknown paramwise_cfg keys '
                f'{unknown}; valid keys: {", ".join(self.PARAMWISE_KEYS)}'
            )
        super().__init__(optim_wrapper_cfg, paramwise_cfg)

    def add_params(self, params: List[dict], module: nn.Module, **kwargs) -> None:
        decay_rate = float(self.paramwise_cfg.get('decay_rate', 1.0))
        backbone_attr = self.paramwise_cfg.get('backbone', 'backbone')
        backbone = _attribute(module, backbone_attr)
        if backbone is None and 'backbone' in self.paramwise_cfg:
            raise ConfigError(
                f'LayerDecayOptimWrapperConstructor: paramwise_cfg backbone={backbone_attr!r} '
                f'is not an attribute of {type(module).__name__}'
            )
        if backbone is not None and not hasattr(backbone, 'get_layer_depth'):
            raise TypeError(
                f'{type(backbone).__name__} has no get_layer_depth(name, prefix): '
                f'layer-wise lr decay needs the backbone to report layer depths'
            )
        prefix = f'{backbone_attr}.'
        regex = self.paramwise_cfg.get('no_decay_regex')
        no_decay = (
            no_decay_parameters(module)
            if regex is None
            else {id(p) for name, p in module.named_parameters() if re.search(regex, name)}
        )
        lr_mults = self.paramwise_cfg.get('lr_mults') or {}
        base_lr = self.base_lr
        base_wd = self.base_wd or 0.0
        groups = {}
        skipped = 0
        for name, param in module.named_parameters():
            if not param.requires_grad:
                skipped += 1
                continue
            if backbone is not None and name.startswith(prefix):
                depth, num_depths = backbone.get_layer_depth(name, prefix)
            else:
                depth, num_depths = 0, 1
            mult = next((m for rx, m in lr_mults.items() if re.search(rx, name)), 1.0)
            scale = decay_rate ** (num_depths - 1 - depth) * mult
            decays = id(param) not in no_decay
            key = (num_depths - 1 - depth, mult, decays)
            if key not in groups:
                groups[key] = dict(
                    params=[],
                    param_names=[],
                    lr_scale=scale,
                    lr=base_lr * scale,
                    weight_decay=base_wd if decays else 0.0,
                    group_name=f'depth_from_top_{key[0]}'
                    + (f'_lr_x{mult:g}' if mult != 1.0 else '')
                    + ('_decay' if decays else '_no_decay'),
                )
            groups[key]['params'].append(param)
            groups[key]['param_names'].append(name)
        params.extend(groups[key] for key in sorted(groups))
        print_log(
            f'layer-wise lr decay {decay_rate}: {len(groups)} parameter groups, '
            f'{skipped} frozen parameters left out of the optimizer',
            logger='current',
        )


def _attribute(module: nn.Module, path: str):
    """``module``'s attribute at the dotted ``path``, or None."""
    for name in path.split('.'):
        module = getattr(module, name, None)
        if module is None:
            return None
    return module
