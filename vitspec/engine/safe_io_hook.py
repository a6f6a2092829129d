"""Safe checkpoint loading and atomic checkpoint writes for the length of a run."""

from mmengine.hooks import Hook
from mmengine.registry import HOOKS

from vitspec.fileio import install_safe_io


@HOOKS.register_module()
class SafeIOHook(Hook):
    """Calls ``vitspec.fileio.install_safe_io`` in ``before_run``, which mmengine's Runner calls
    before it initialises the weights or loads / resumes a checkpoint (``train``, ``val`` and
    ``test``), and puts mmengine's own loader and backend back in ``after_run``. Highest
    priority: the other hooks' ``before_run`` already sees the atomic backend."""

    priority = 'HIGHEST'

    def __init__(self):
        self._restore = None

    def before_run(self, runner) -> None:
        self._restore = install_safe_io()

    def after_run(self, runner) -> None:
        if self._restore is not None:
            self._restore()
            self._restore = None
