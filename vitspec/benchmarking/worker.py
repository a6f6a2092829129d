"""A Case in its own process, driven over a pipe by the parent."""

import multiprocessing
import os
import time
import traceback

import torch

from .case import Case
from .config_case import ConfigCase

# glibc returns freed blocks over its mmap / trim thresholds to the OS, so that the next step
# takes page faults on them again; how often depends on the order of a model's allocations, not
# on its compute (seen: GELU 115-145 ms or 50 ms for the same model). Workers keep what they free.
STEADY_MALLOC = {'MALLOC_MMAP_THRESHOLD_': str(32 << 20), 'MALLOC_TRIM_THRESHOLD_': str(1 << 40)}


def _serve(conn, case_class, args):
    """Worker process: builds one case, then runs the methods the parent names."""
    torch.set_num_threads(args.pop('threads'))
    try:
        case = case_class(**args)
    except Exception as exc:
        conn.send((False, _failure(exc)))
        return
    conn.send((True, None))
    for method in iter(conn.recv, None):
        try:
            conn.send((True, getattr(case, method)()))
        except Exception as exc:
            conn.send((False, _failure(exc)))


def _failure(exc):
    """The exception and where it was raised (a bare `assert` in a library says nothing)."""
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    return f'{type(exc).__name__}: {exc} (raised at {frame.filename}:{frame.lineno})'


class Worker:
    """A Case (a backbone in one setting) in its own process, so that no model inherits
    another's heap and caches.

    Within one process, whichever model was built first tended to reach a higher share of the
    GEMM rate, whatever its code; one fresh process per model, with steady malloc settings
    (STEADY_MALLOC), gives each the same start. Only one worker runs at a time, so they do not
    compete for the cores.
    """

    case_class = Case

    def __init__(self, name, size, img, batch, dtype, mode, device):
        self._start(
            dict(name=name, size=size, img=img, batch=batch, dtype=dtype, mode=mode, device=device)
        )

    def _start(self, args):
        spawn = multiprocessing.get_context('spawn')
        self.name = args['name']
        self.conn, child = spawn.Pipe()
        args = dict(args, threads=torch.get_num_threads())
        self.process = spawn.Process(
            target=_serve, args=(child, self.case_class, args), daemon=True
        )
        unset = {k: v for k, v in STEADY_MALLOC.items() if k not in os.environ}  # user's win
        os.environ.update(unset)  # a spawned child's glibc reads them at start-up
        try:
            self.process.start()
        finally:
            for k in unset:
                del os.environ[k]
        child.close()  # the child's end only: so that a worker that dies is an EOF, not a hang
        self._reply()

    def _reply(self):
        try:
            ok, value = self.conn.recv()
        except EOFError:
            self.process.join(timeout=30)
            ok, value = False, f'its worker process died (exit code {self.process.exitcode})'
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


class ConfigWorker(Worker):
    """A ConfigCase (a config's train step, or its test step) in its own process."""

    case_class = ConfigCase

    def __init__(
        self, name, config, device, batch=None, cfg_options=None, mode='training', kernels=None
    ):
        self._start(
            dict(
                name=name,
                config=config,
                device=device,
                batch=batch,
                cfg_options=cfg_options,
                mode=mode,
                kernels=kernels,
            )
        )

    def describe(self):
        return self._call('describe')
