"""Putting the safe loader and the atomic local backend into mmengine, and taking them out.

Importing vitspec changes nothing in mmengine. ``install_safe_io()`` is the one call that does:
mmengine's CheckpointLoader then reads local paths with ``safe_torch_load`` (``load_from``,
``resume``, ``init_cfg=dict(type='Pretrained')``) and its local file backend writes atomically
(checkpoints, ``last_checkpoint``). Runs get it from ``SafeIOHook`` in the runtime configs;
scripts that read or write checkpoints outside a Runner call it themselves.
"""

from contextlib import contextmanager
from typing import Callable, Iterator

import mmengine.fileio.io as mmengine_io
from mmengine.fileio.backends import backends, prefix_to_backends, register_backend
from mmengine.runner import CheckpointLoader

from .atomic_write import AtomicLocalBackend
from .safe_load import load_local_checkpoint

LOCAL_NAME, LOCAL_PREFIX = 'local', ''  # how mmengine registers plain paths


def safe_io_installed() -> bool:
    return (
        CheckpointLoader._schemes.get(LOCAL_PREFIX) is load_local_checkpoint
        and backends.get(LOCAL_NAME) is AtomicLocalBackend
        and prefix_to_backends.get(LOCAL_PREFIX) is AtomicLocalBackend
    )


def install_safe_io() -> Callable[[], None]:
    """Install into mmengine; idempotent. Returns ``restore``, which puts back what was there
    before; it does nothing when the call found everything installed already, so nested
    install / restore pairs leave the outermost one in charge."""
    if safe_io_installed():
        return lambda: None
    before = LocalIOState()
    CheckpointLoader.register_scheme(LOCAL_PREFIX, load_local_checkpoint, force=True)
    register_backend(LOCAL_NAME, AtomicLocalBackend, prefixes=LOCAL_PREFIX, force=True)
    _forget_instances_of((before.by_name, before.by_prefix))
    return before.restore


class LocalIOState:
    """mmengine's local checkpoint loader and file backend classes as they are when made;
    ``restore()`` puts them back."""

    def __init__(self):
        self.scheme = CheckpointLoader._schemes.get(LOCAL_PREFIX)
        self.by_name = backends.get(LOCAL_NAME)
        self.by_prefix = prefix_to_backends.get(LOCAL_PREFIX)

    def restore(self):
        if self.scheme is None:
            CheckpointLoader._schemes.pop(LOCAL_PREFIX, None)
        else:
            CheckpointLoader.register_scheme(LOCAL_PREFIX, self.scheme, force=True)
        _put(backends, LOCAL_NAME, self.by_name)
        _put(prefix_to_backends, LOCAL_PREFIX, self.by_prefix)
        _forget_instances_of((AtomicLocalBackend,))


@contextmanager
def using_safe_io() -> Iterator[None]:
    """``install_safe_io()`` for the length of a ``with`` block, e.g. around a Runner's
    ``load_checkpoint`` called before its ``before_run``."""
    restore = install_safe_io()
    try:
        yield
    finally:
        restore()


def _put(registry: dict, key, value):
    if value is None:
        registry.pop(key, None)
    else:
        registry[key] = value


def _forget_instances_of(classes):
    """Drop mmengine's cached backend instances (``mmengine.fileio.get`` / ``put`` reuse them)
    of the replaced classes, so the next call builds one of the class now registered."""
    stale = [
        key for key, backend in mmengine_io.backend_instances.items() if type(backend) in classes
    ]
    for key in stale:
        del mmengine_io.backend_instances[key]
