"""Shared steps of the kernels: float32 for low-precision inputs, gradients by recomputation."""

import torch

LOW_PRECISION = (torch.float16, torch.bfloat16)


def full_precision(tensor: torch.Tensor) -> torch.Tensor:
    """float32 for float16 / bfloat16 tensors, the tensor itself otherwise."""
    return tensor.float() if tensor.dtype in LOW_PRECISION else tensor


def write_gradients(function, inputs, grad_output, grad_buffers) -> None:
    """The gradients of ``function(*inputs)`` for ``grad_output``, added into ``grad_buffers`` (one
    per input, None for an input without one), as mmcv's backward kernels fill the zeroed buffers
    that its autograd functions hand them. Runs in full precision with autocast off."""
    wanted = [i for i, buffer in enumerate(grad_buffers) if buffer is not None]
    with torch.enable_grad(), torch.autocast(grad_output.device.type, enabled=False):
        leaves = [
            full_precision(t).detach().requires_grad_(i in wanted) for i, t in enumerate(inputs)
        ]
        out = function(*leaves)
        grads = torch.autograd.grad(out, [leaves[i] for i in wanted], full_precision(grad_output))
    for i, grad in zip(wanted, grads):
        grad_buffers[i].add_(grad.to(grad_buffers[i].dtype))
