"""facebookresearch/mae's ViTs, mapped to SpecViT's names."""


def from_mae(sd: dict) -> dict:
    """MAE: timm names; pre-training adds the decoder, fine-tuning with global pooling replaces
    the final ``norm`` by ``fc_norm``, which then serves as the final norm."""
    out = dict(sd)
    if 'norm.weight' not in out and 'fc_norm.weight' in out:
        out['norm.weight'] = out.pop('fc_norm.weight')
        out['norm.bias'] = out.pop('fc_norm.bias')
    return out
