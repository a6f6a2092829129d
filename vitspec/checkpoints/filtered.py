"""What a model's checkpoint filter hands back to the loader (the protocol of
``model.filter_checkpoint(state_dict)``, after timm's ``checkpoint_filter_fn``)."""

from typing import NamedTuple


class FilteredCheckpoint(NamedTuple):
    state_dict: dict  # adapted to the model, to be loaded strictly
    filled: list  # keys the model started itself (not from the checkpoint)
    notes: list  # 'what: keys' lines the loader logs once the weights are in


def filter_under(prefix: str, model_filter, state_dict: dict) -> FilteredCheckpoint:
    """``model_filter`` (a submodule's ``filter_checkpoint``) applied to the keys of
    ``state_dict`` under ``prefix`` (the submodule's name and a dot); the other keys kept."""
    inner = {k[len(prefix) :]: v for k, v in state_dict.items() if k.startswith(prefix)}
    filtered = model_filter(inner)
    sd = {k: v for k, v in state_dict.items() if not k.startswith(prefix)}
    sd.update({prefix + k: v for k, v in filtered.state_dict.items()})
    return FilteredCheckpoint(sd, [prefix + k for k in filtered.filled], filtered.notes)
