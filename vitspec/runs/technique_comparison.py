"""Two configs that differ only in a backbone technique, checked so before they are compared
(tools/compare_techniques.py). Anything but the technique options differing (checkpoint, schedule,
data, head, seed ...) is refused with the keys that differ, and so are two configs that build the
same model; frozen probes compare pretrained checkpoints, so there the checkpoints may differ."""

from mmengine.config import Config

from vitspec.config.tree import differing, flatten
from vitspec.models.backbones.spec_vit import TECHNIQUE_ARGS


def recipe_differences(a: Config, b: Config):
    """(technique keys that differ, other keys that differ) between two built configs."""
    differ = [key for key, _, _ in differing(flatten(a.to_dict()), flatten(b.to_dict()))]
    # an empty dict on one side, keys in it on the other: the keys name the difference
    differ = [k for k in differ if not any(d.startswith(f'{k}.') for d in differ)]
    technique = [
        k
        for k in differ
        if k.split('.')[0] == 'technique'  # the fragments' variable
        or is_technique_key(k)
    ]
    return technique, [k for k in differ if k not in technique]


def is_technique_key(key: str) -> bool:
    """Whether a flattened config key is (inside) a SpecViT technique argument."""
    parts = key.split('.')
    return parts[:2] == ['model', 'backbone'] and len(parts) > 2 and parts[2] in TECHNIQUE_ARGS


def frozen(cfg: Config) -> bool:
    backbone = cfg.model.backbone
    return backbone.get('frozen_stages', -1) >= backbone.num_layers


def check_comparable(a: Config, b: Config, names):
    technique, other = recipe_differences(a, b)
    if frozen(a) and frozen(b):  # a frozen probe compares pretrained checkpoints
        other = [k for k in other if k != 'model.backbone.init_cfg.checkpoint']
    if other:
        shown = ', '.join(other[:10]) + (' ...' if len(other) > 10 else '')
        raise SystemExit(
            f'compare_techniques: {names[0]} and {names[1]} differ beyond the '
            f'backbone technique, so the comparison would not isolate it: {shown}'
        )
    if not any(k.startswith('model.') for k in technique):
        raise SystemExit(f'compare_techniques: {names[0]} and {names[1]} build the same model')
    return technique
