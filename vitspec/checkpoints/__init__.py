from .load import load_pretrained, load_state_dict_strict, unwrap_state_dict

__all__ = ['load_pretrained', 'load_state_dict_strict', 'unwrap_state_dict']
