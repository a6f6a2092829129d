"""mmcv's compiled-ops module (``mmcv._ext``) in PyTorch and torchvision, with no compiler.

tools/install.sh builds mmcv 2.1.0 without its C++/CUDA ops and installs this package as
``mmcv._ext``: mmcv's own Python ops (autograd functions, modules, registrations, batched NMS,
point sampling) then run unchanged on these kernels, which take the compiled functions' names
and arguments and write into the same output buffers. The kernels mmseg, mmdet and vitspec use
are here, on every device torch and torchvision run on: NMS and NMS matching, RoIAlign (average
pooling), multi-scale deformable attention, sigmoid focal loss, deformable and modulated
deformable convolution. Any other name resolves to a function that raises at its first call
with the fix (``tools/install.sh --mmcv-ops``, the compiled build).

Nothing here imports vitspec: mmseg and mmdet import this module while vitspec may be half
imported. Low-precision inputs (float16, bfloat16) run in float32, as mmcv's CPU kernels need
and its CUDA kernels nearly do; results are written back in the buffers' dtype.
"""

from .deform_conv import (
    deform_conv_backward_input,
    deform_conv_backward_parameters,
    deform_conv_forward,
    modulated_deform_conv_backward,
    modulated_deform_conv_forward,
)
from .focal_loss import sigmoid_focal_loss_backward, sigmoid_focal_loss_forward
from .info import KERNELS, get_compiler_version, get_compiling_cuda_version
from .missing import missing_kernel
from .ms_deform_attn import ms_deform_attn_backward, ms_deform_attn_forward
from .nms import nms, nms_match
from .roi_align import roi_align_backward, roi_align_forward

__all__ = [
    'KERNELS',
    'deform_conv_backward_input',
    'deform_conv_backward_parameters',
    'deform_conv_forward',
    'get_compiler_version',
    'get_compiling_cuda_version',
    'modulated_deform_conv_backward',
    'modulated_deform_conv_forward',
    'ms_deform_attn_backward',
    'ms_deform_attn_forward',
    'nms',
    'nms_match',
    'roi_align_backward',
    'roi_align_forward',
    'sigmoid_focal_loss_backward',
    'sigmoid_focal_loss_forward',
]


def __getattr__(name):
    # mmcv's op modules check at import that every kernel they name exists (ext_loader.load_ext)
    if name.startswith('__'):
        raise AttributeError(name)
    return missing_kernel(name)
