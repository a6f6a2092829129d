"""mmcv's rule for the gradient of a sampling location at the border of its feature map.

mmcv's deformable-convolution and deformable-attention kernels give a sampling point at or beyond
the border (row <= -1 or >= height, column <= -1 or >= width) a zero location gradient
(``get_coordinate_weight`` in mmcv/ops/csrc/common/cuda/deform_conv_cuda_kernel.cuh and
modulated_deform_conv_cuda_kernel.cuh, the ``h_im > -1`` guard in ms_deform_attn_cuda_kernel.cuh,
the same in its CPU kernels). Bilinear sampling elsewhere (torchvision's ``deform_conv2d``,
``grid_sample``) differs at exactly -1, where the forward value is zero but its slope towards the
image is not: there a deformable layer with padding starts moving its offsets, at its first step
with zero offsets, where mmcv's does not. The forward is the same; the location gradient is
stopped where mmcv's kernels stop it."""

import torch


def stop_gradient_outside(location, inside):
    """``location`` with its values unchanged and its gradient zero where ``inside`` is False."""
    return torch.where(inside, location, location.detach())


def inside(rows, columns, height, width):
    """Whether sampling points at (rows, columns) are strictly inside (-1, height) x (-1, width),
    where mmcv's kernels give them a location gradient."""
    return (rows > -1) & (rows < height) & (columns > -1) & (columns < width)


def deform_conv_offset(offset, height, width, kernel, stride, padding, dilation):
    """The (N, deformable groups * 2 * kh * kw, H_out, W_out) offsets of a deformable convolution
    in mmcv's layout ((row, column) per kernel tap), their gradient stopped where the sampling
    point they move lies at or beyond the input's border."""
    n, channels, out_h, out_w = offset.shape
    kh, kw = kernel
    taps = offset.reshape(n, channels // (2 * kh * kw), kh, kw, 2, out_h, out_w)

    def base(size, k, s, p, d):
        # the point tap k of output position o samples without offset: o * s - p + k * d
        out = torch.arange(size, device=offset.device, dtype=offset.dtype) * s - p
        return out + torch.arange(k, device=offset.device, dtype=offset.dtype)[:, None] * d

    rows = (
        taps[:, :, :, :, 0] + base(out_h, kh, stride[0], padding[0], dilation[0])[:, None, :, None]
    )
    columns = (
        taps[:, :, :, :, 1] + base(out_w, kw, stride[1], padding[1], dilation[1])[None, :, None, :]
    )
    keep = inside(rows, columns, height, width).unsqueeze(4).expand_as(taps)
    return stop_gradient_outside(offset, keep.reshape(offset.shape))


def attention_locations(sampling_loc, spatial_shapes):
    """Multi-scale deformable attention's (..., levels, points, 2) sampling locations in [0, 1]
    (x, y), their gradient stopped where the point lies at or beyond its level's border, at pixel
    coordinates ``location * size - 0.5`` as mmcv's kernel computes them."""
    size = spatial_shapes.flip(-1).to(sampling_loc.dtype)[:, None, :]  # (levels, 1, (w, h))
    pixel = sampling_loc * size - 0.5
    keep = inside(pixel[..., 1], pixel[..., 0], size[..., 1], size[..., 0])
    return stop_gradient_outside(sampling_loc, keep.unsqueeze(-1).expand_as(sampling_loc))
