"""What a model's checkpoint filter hands back to the loader (the protocol of
``model.filter_checkpoint(state_dict)``, after timm's ``checkpoint_filter_fn``)."""

from typing import NamedTuple


class FilteredCheckpoint(NamedTuple):
    state_dict: dict  # adapted to the model, to be loaded strictly
    filled: list  # keys the model started itself (not from the checkpoint)
    notes: list  # 'what: keys' lines the loader logs once the weights are in
