"""Deformable convolution (DCN) and modulated deformable convolution (DCNv2) on torchvision's
kernel, which reads offsets and masks in mmcv's layout ((y, x) per kernel tap and deformable
group); gradients by recomputation, the offsets' with mmcv's border rule (border.py). mmcv's
``columns`` / ``ones`` scratch buffers go unused."""

import torch
import torchvision

from . import border
from .recompute import full_precision, write_gradients


def _deform_conv(stride, padding, dilation, groups, deform_groups):
    """torchvision's deformable convolution, which reads the (deformable) groups off the shapes
    of the weight and the offset: they must be the ones mmcv was given."""

    def conv(input, weight, offset, mask=None, bias=None):
        if input.size(1) != groups * weight.size(1):
            raise ValueError(
                f'{input.size(1)} input channels are not {groups} groups of {weight.size(1)}'
            )
        if offset.size(1) != deform_groups * 2 * weight.size(2) * weight.size(3):
            raise ValueError(
                f'{offset.size(1)} offset channels are not {deform_groups} deformable groups'
            )
        if offset.requires_grad:
            offset = border.deform_conv_offset(
                offset, *input.shape[2:], weight.shape[2:], stride, padding, dilation
            )
        return torchvision.ops.deform_conv2d(
            input, offset, weight, bias, stride, padding, dilation, mask
        )

    return conv


def _float32_conv(conv, *tensors):
    with torch.autocast(tensors[0].device.type, enabled=False):
        return conv(*(full_precision(t) if t is not None else None for t in tensors))


def deform_conv_forward(
    input, weight, offset, output, columns, ones, kW, kH, dW, dH, padW, padH,
    dilationW, dilationH, group, deformable_group, im2col_step,
):  # fmt: skip
    conv = _deform_conv((dH, dW), (padH, padW), (dilationH, dilationW), group, deformable_group)
    output.copy_(_float32_conv(conv, input, weight, offset))


def deform_conv_backward_input(
    input, offset, gradOutput, gradInput, gradOffset, weight, columns, kW, kH, dW, dH, padW,
    padH, dilationW, dilationH, group, deformable_group, im2col_step,
):  # fmt: skip
    conv = _deform_conv((dH, dW), (padH, padW), (dilationH, dilationW), group, deformable_group)
    write_gradients(conv, (input, weight, offset), gradOutput, (gradInput, None, gradOffset))


def deform_conv_backward_parameters(
    input, offset, gradOutput, gradWeight, columns, ones, kW, kH, dW, dH, padW, padH,
    dilationW, dilationH, group, deformable_group, scale, im2col_step,
):  # fmt: skip
    conv = _deform_conv((dH, dW), (padH, padW), (dilationH, dilationW), group, deformable_group)
    # the output is linear in the weight: its gradient does not depend on the weight's values
    weight = torch.zeros_like(gradWeight)
    write_gradients(conv, (input, weight, offset), gradOutput * scale, (None, gradWeight, None))


def modulated_deform_conv_forward(
    input, weight, bias, ones, offset, mask, output, columns, kernel_h, kernel_w, stride_h,
    stride_w, pad_h, pad_w, dilation_h, dilation_w, group, deformable_group, with_bias,
):  # fmt: skip
    conv = _deform_conv(
        (stride_h, stride_w), (pad_h, pad_w), (dilation_h, dilation_w), group, deformable_group
    )
    output.copy_(_float32_conv(conv, input, weight, offset, mask, bias if with_bias else None))


def modulated_deform_conv_backward(
    input, weight, bias, ones, offset, mask, columns, grad_input, grad_weight, grad_bias,
    grad_offset, grad_mask, grad_output, kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w,
    dilation_h, dilation_w, group, deformable_group, with_bias,
):  # fmt: skip
    conv = _deform_conv(
        (stride_h, stride_w), (pad_h, pad_w), (dilation_h, dilation_w), group, deformable_group
    )
    tensors = (input, weight, offset, mask) + ((bias,) if with_bias else ())
    grads = (grad_input, grad_weight, grad_offset, grad_mask) + ((grad_bias,) if with_bias else ())
    write_gradients(conv, tensors, grad_output, grads)
