"""Sigmoid focal loss (Lin et al., 2017) per element, as mmcv's CUDA kernel computes it: targets
are class indices, ``num_classes`` (the input's width) meaning background; logs clamped at the
smallest normal float; a per-class ``weight`` (empty for none) scales the rows of that class."""

import torch

from .errors import KernelInputError
from .recompute import full_precision

TINY = torch.finfo(torch.float32).tiny


def _check_targets(target, classes, weighted):
    """Class indices in [0, classes] (classes: background; not with a class weight), read in one
    device sync. mmcv's kernel takes any other value as background without a word, and reads
    past the class weight for background."""
    if not target.numel():
        return
    low, high = (int(v) for v in torch.stack(torch.aminmax(target)).tolist())
    top = classes - 1 if weighted else classes
    if low >= 0 and high <= top:
        return
    if weighted and low >= 0 and high == classes:
        raise KernelInputError(
            'sigmoid focal loss with a class weight: background targets (= the number of '
            f"classes, {classes}) have no weight (mmcv's kernel reads past the weight there): "
            'drop the class weight or the background targets'
        )
    raise KernelInputError(
        f'sigmoid focal loss: targets range over [{low}, {high}], but the prediction has '
        f'{classes} classes, so targets must be class indices in [0, {classes - 1}] or '
        f'{classes} for background: the dataset has more classes than the head (set the '
        "head's num_classes to the dataset's number of classes), or the targets hold an ignore "
        'value (drop those rows before the loss)'
    )


def _terms(input, target, weight, positive_term, negative_term, alpha):
    """alpha * positive_term at the target class, (1 - alpha) * negative_term elsewhere, times
    the target class's weight; p is the sigmoid of the input."""
    p = input.sigmoid()
    positive = torch.nn.functional.one_hot(target, input.size(1) + 1)[:, :-1].to(p.dtype)
    out = -alpha * positive * positive_term(p) - (1 - alpha) * (1 - positive) * negative_term(p)
    if weight.numel():
        out = out * weight[target][:, None]
    return out


def sigmoid_focal_loss_forward(input, target, weight, output, gamma, alpha):
    """-alpha (1 - p)^gamma log p at the target class, -(1 - alpha) p^gamma log(1 - p) elsewhere."""
    _check_targets(target, input.size(1), bool(weight.numel()))  # the backward gets the same
    with torch.autocast(input.device.type, enabled=False):
        output.copy_(
            _terms(
                full_precision(input),
                target,
                full_precision(weight),
                lambda p: (1 - p).pow(gamma) * p.clamp(min=TINY).log(),
                lambda p: p.pow(gamma) * (1 - p).clamp(min=TINY).log(),
                alpha,
            )
        )


def sigmoid_focal_loss_backward(input, target, weight, grad_input, gamma, alpha):
    """d loss / d input, mmcv's closed form (its caller multiplies by grad_output)."""
    with torch.autocast(input.device.type, enabled=False):
        grad_input.copy_(
            _terms(
                full_precision(input),
                target,
                full_precision(weight),
                lambda p: (1 - p).pow(gamma) * (1 - p - gamma * p * p.clamp(min=TINY).log()),
                lambda p: p.pow(gamma) * (gamma * (1 - p) * (1 - p).clamp(min=TINY).log() - p),
                alpha,
            )
        )
