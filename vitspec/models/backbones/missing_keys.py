"""Checkpoint keys a SpecViT can fill itself when a checkpoint lacks them."""

import re

from vitspec.layers.specialized import row_group_of, shared_key

REL_POS_PARAMS = ('rel_pos_h', 'rel_pos_w', 'relative_position_bias_table')
OWN_BUFFERS = ('rope.periods',)  # made from the backbone's options, not learned


def fill_missing_keys(own: dict, sd: dict, missing, identity_layer_scale: bool) -> list:
    """Missing parameters of a row group (CLS or query copies of specialized layers) start from
    the shared (patch) weights in ``sd``; LoRA factors and relative position biases (absent
    from e.g. MAE pretraining) keep the model's own init (``own``: its state dict; B = 0, zero
    bias), as do OWN_BUFFERS and, when ``identity_layer_scale`` (initialised to 1.0, MAE's
    segmentation fine-tuning), LayerScales, which leave the loaded network's function
    unchanged. Returns the keys added to ``sd``."""
    filled = []
    for key in missing:
        identity_ls = identity_layer_scale and re.search(r'\.ls[12]\.gamma$', key)
        if key.rpartition('.')[2] in REL_POS_PARAMS or key in OWN_BUFFERS or identity_ls:
            sd[key] = own[key]
            filled.append(key)
            continue
        if row_group_of(key) is None:
            continue
        src = shared_key(key)
        if src is None:
            sd[key] = own[key]
        elif src in sd:
            sd[key] = sd[src].clone()
        else:
            continue
        filled.append(key)
    return filled
