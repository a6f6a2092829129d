"""Checkpoints into models: reading and converting files, strict loading with the keys
that do not fit named, foreign key layouts (``layouts``) and a trained model's checkpoint with
its config (``trained``)."""

from .load import load_pretrained, load_state_dict_strict, unwrap_state_dict

__all__ = ['load_pretrained', 'load_state_dict_strict', 'unwrap_state_dict']
