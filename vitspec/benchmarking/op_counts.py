"""What one forward + backward (or one inference forward) costs beyond time: FLOPs, and the
aten ops it launches.

On a GPU every op is a kernel and, for an elementwise op over an activation, a pass over memory;
the FLOP count alone misses that. `op_counts` counts the ops at the dispatcher (a
``TorchDispatchMode``, below autocast and autograd), so casts inserted by autocast and the ops of
every backward, custom or not, are counted as they run. View ops (slice, transpose, detach, ...)
are counted too, but apart: they launch no kernel.
"""

import collections
import contextlib
from dataclasses import dataclass, field

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode

GEMMS = frozenset({'mm', 'addmm', 'addmm_', 'bmm', 'baddbmm', 'baddbmm_'})
CASTS = frozenset({'_to_copy', 'copy_'})
SDPA = '_scaled_dot_product_'


@dataclass
class OpCounts:
    """aten ops by name (overload dropped) over one forward + backward."""

    by_name: collections.Counter = field(default_factory=collections.Counter)
    views: collections.Counter = field(default_factory=collections.Counter)
    cast_shapes: list = field(default_factory=list)  # the output shape of each cast

    @property
    def total(self) -> int:
        return sum(self.by_name.values())

    @property
    def kernels(self) -> int:
        """Ops that are not views: each one a kernel launch on a GPU."""
        return self.total - sum(self.views.values())

    def activation_casts(self, batch: int, tokens: int) -> int:
        """Casts (and copies) of whole activations: outputs shaped (batch, tokens, ...) or
        (batch * tokens, ...)."""
        return sum(
            tuple(s[:2]) == (batch, tokens) or (len(s) and s[0] == batch * tokens)
            for s in self.cast_shapes
        )

    @property
    def casts(self) -> int:
        return sum(self.by_name[n] for n in CASTS)

    @property
    def gemms(self) -> int:
        return sum(self.by_name[n] for n in GEMMS)

    @property
    def attention(self) -> str:
        """The fused attention kernels that ran (SDPA's backends: 'flash', 'efficient', 'cudnn',
        'flash_for_cpu'), or 'math' where none did: SDPA's math fallback, or attention written
        out (talking heads), runs as bmm and softmax."""
        names = sorted(
            n.removeprefix(SDPA).removesuffix('_attention').removesuffix('_attention_for_cpu')
            + ('_for_cpu' if n.endswith('_for_cpu') else '')
            for n in self.by_name
            if n.startswith(SDPA) and not n.endswith('_backward')
        )
        return ','.join(names) or 'math'

    def summary(self) -> dict:
        return dict(
            ops=self.total,
            kernels=self.kernels,
            casts=self.casts,
            gemms=self.gemms,
            attention=self.attention,
        )


def _is_view(func) -> bool:
    alias = func._schema.returns[0].alias_info if func._schema.returns else None
    return alias is not None and not alias.is_write


class _OpCounter(TorchDispatchMode):
    def __init__(self, counts: OpCounts):
        super().__init__()
        self.counts = counts

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = func.overloadpacket.__name__
        self.counts.by_name[name] += 1
        if _is_view(func):
            self.counts.views[name] += 1
        out = func(*args, **(kwargs or {}))
        if name in CASTS:
            self.counts.cast_shapes.append(tuple(out.shape))
        return out


def _autocast(device_type, dtype):
    if dtype is None or dtype == torch.float32:
        return contextlib.nullcontext()
    return torch.autocast(device_type, dtype)


def _forward_backward(model, inputs, device_type, autocast_dtype):
    with _autocast(device_type, autocast_dtype):
        out = model(*inputs)
    outs = out if isinstance(out, (tuple, list)) else [out]
    loss = sum(o.float().sum() for o in outs)
    loss.backward()


def op_counts(model, inputs, autocast_dtype=None, device_type='cpu') -> OpCounts:
    """The aten ops of ``model(*inputs)`` and its backward, under autocast of ``autocast_dtype``
    (None or float32: no autocast), as every step of a training run launches them: after one
    step that is not counted (what a step forms once and keeps, it forms there). The loss is the
    sum of the outputs; the gradients are dropped after each step."""
    counts = OpCounts()
    for counter in (contextlib.nullcontext(), _OpCounter(counts)):
        with counter:
            _forward_backward(model, inputs, device_type, autocast_dtype)
        _drop_grads(model, inputs)
    return counts


def _drop_grads(model, inputs):
    params = model.parameters() if isinstance(model, torch.nn.Module) else ()
    for t in (*params, *inputs):
        if isinstance(t, torch.Tensor):
            t.grad = None


def inference_op_counts(model, inputs, autocast_dtype=None, device_type='cpu') -> OpCounts:
    """The aten ops of one ``model(*inputs)`` without autograd, as inference runs it: after one
    forward that is not counted (what a model forms once for inference, it forms there), each in
    its own autocast region (autocast's weight casts are redone per region)."""
    counts = OpCounts()
    with torch.no_grad():
        for counter in (contextlib.nullcontext(), _OpCounter(counts)):
            with counter, _autocast(device_type, autocast_dtype):
                model(*inputs)
    return counts


def flop_count(model, inputs, autocast_dtype=None, device_type='cpu') -> int:
    """FLOPs of ``model(*inputs)`` and its backward (torch's FlopCounterMode: GEMMs, attention,
    convolutions), under autocast of ``autocast_dtype`` as in `op_counts`."""
    counter = FlopCounterMode(display=False)
    with counter:
        _forward_backward(model, inputs, device_type, autocast_dtype)
    return counter.get_total_flops()
