"""A copy of a model with the parts that have an export-friendly twin replaced by it."""

import copy

from torch import nn

from vitspec.layers.token_graying import TokenGraying

from .dct_matrix import MatrixDctGraying
from .limits import refuse_unsupported


def exportable_copy(model: nn.Module) -> nn.Module:
    """An eval-mode deep copy of ``model`` in which Token Graying 'dct' computes its DCTs by
    matrices (`MatrixDctGraying`); the original model is not changed. Raises
    ConfigError for a part that has no ONNX form."""
    refuse_unsupported(model)
    model = copy.deepcopy(model).eval()
    for parent in list(model.modules()):
        for name, child in parent.named_children():
            if isinstance(child, TokenGraying) and child.mode == 'dct':
                setattr(parent, name, MatrixDctGraying(child))
    return model
