"""Constant tensors built once per key in eager mode, and in the graph where a call is traced.

An lru_cache of tensors is wrong under tracing: a fake or functional tensor made while
torch.export or torch.compile traces would be kept and handed to a later eager call, and dynamo
warns that it ignores the cache ("Dynamo detected a call to a functools.lru_cache-wrapped
function"). An EagerCache keeps results from eager calls only.
"""

import functools

import torch


def is_traced(t: torch.Tensor) -> bool:
    """Whether ``t`` is flowing through a trace (torch.compile, torch.export: fake or functional
    tensors) rather than an eager call."""
    return type(t) is not torch.Tensor or torch.compiler.is_compiling()


class EagerCache:
    """``cache(like, *keys)``: ``build(*keys)``, kept (at most ``maxsize`` keys) when the tensor
    ``like`` it is built for is eager, built anew when it is traced."""

    def __init__(self, build, maxsize: int):
        self.build = build
        self.kept = functools.lru_cache(maxsize=maxsize)(build)

    def __call__(self, like: torch.Tensor, *keys):
        return (self.build if is_traced(like) else self.kept)(*keys)
