"""A Case in its own process, driven over a pipe by the parent."""

import multiprocessing
import os
import time

import torch

from .case import Case

# glibc returns freed blocks over its mmap / trim thresholds to the OS, so that the next step
# takes page faults on them again; how often depends on the order of a model's allocations, not
# on its compute (seen: GELU 115-145 ms or 50 ms for the same model). Workers keep what they free.
STEADY_MALLOC = {'MALLOC_MMAP_THRESHOLD_': str(32 << 20), 'MALLOC_TRIM_THRESHOLD_': str(1 << 40)}


def _serve(conn, args):
    """Worker process: builds one Case, then runs the methods the parent names."""
    torch.set_num_threads(args.pop('threads'))
    try:
        case = Case(**args)
    except Exception as exc:
        conn.send((False, f'{type(exc).__name__}: {exc}'))
        return
    conn.send((True, None))
    for method in iter(conn.recv, None):
        try:
            conn.send((True, getattr(case, method)()))
        except Exception as exc:
            conn.send((False, f'{type(exc).__name__}: {exc}'))


class Worker:
    """A Case in its own process, so that no model inherits another's heap and caches.

    Within one process, whichever model was built first tended to reach a higher share of the
    GEMM rate, whatever its code; one fresh process per model, with steady malloc settings
    (STEADY_MALLOC), gives each the same start. Only one worker runs at a time, so they do not
    compete for the cores.
    """

    def __init__(self, name, size, img, batch, dtype, mode, device):
        spawn = multiprocessing.get_context('spawn')
        self.name = name
        self.conn, child = spawn.Pipe()
        args = dict(
            name=name,
            size=size,
            img=img,
            batch=batch,
            dtype=dtype,
            mode=mode,
            device=device,
            threads=torch.get_num_threads(),
        )
        self.process = spawn.Process(target=_serve, args=(child, args), daemon=True)
        unset = {k: v for k, v in STEADY_MALLOC.items() if k not in os.environ}  # user's win
        os.environ.update(unset)  # a spawned child's glibc reads them at start-up
        try:
            self.process.start()
        finally:
            for k in unset:
                del os.environ[k]
        self._reply()

    def _reply(self):
        ok, value = self.conn.recv()
        if not ok:
            raise RuntimeError(f'benchmark model {self.name!r}: {value}')
        return value

    def _call(self, method):
        time.sleep(0.01)  # let the previous worker's OpenMP threads stop spinning
        self.conn.send(method)
        return self._reply()

    def step(self):
        return self._call('step')

    def timed(self):
        return self._call('timed')

    def flops(self):
        return self._call('flops')

    def memory_bytes(self):
        return self._call('memory_bytes')

    def compile_seconds(self):
        return self._call('compile_seconds')

    def op_counts(self):
        return self._call('op_counts')

    def close(self):
        if self.process.is_alive():
            self.conn.send(None)
        self.process.join(timeout=30)
