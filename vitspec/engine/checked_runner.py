"""The Runner every vitspec config names in ``runner_type``: mmengine's Runner with five checks
and guarantees, each done by its own module."""

from mmengine.registry import RUNNERS
from mmengine.runner import Runner

from vitspec.config.probe_grid import grid_config
from vitspec.config.typos import check_config_keys

from .checkpointing.plain_data import restore_objects, store_as_plain_data
from .checkpointing.resume import checkpoint_to_resume, written_by_this_run
from .checkpointing.runner_fields import resumes_without_a_file, set_checkpoint_to_resume
from .checkpointing.strict_load import MODULE_PREFIX, load_checkpoint_strict, partial_load_requested
from .hooks.iteration_seed import with_iteration_seed


# The runtime configs name it in runner_type (mmseg's and mmdet's train scripts honour it too);
# 'StrictLoadRunner', its first name, stays registered for the configs saved in older checkpoints.
@RUNNERS.register_module(name=['CheckedRunner', 'StrictLoadRunner'])
class CheckedRunner(Runner):
    """mmengine's Runner, with

    - the config checked before the run is built: a key that is a typo stops it
      (``check_config_keys``);
    - a probe grid config (``probe_grid``) built as the run of all its heads
      (``vitspec/config/probe_grid.py``);
    - every iteration seeded from (seed, iteration), so that a resumed run trains as the
      uninterrupted one: an IterationSeedHook is added to ``custom_hooks``
      (``hooks/iteration_seed.py``);
    - a resume without a file continues from the work dir's own checkpoint, and stops naming what
      the folder holds when there is none (``checkpointing/resume.py``);
    - checkpoints loaded strictly: ``load_from`` (tools/test.py's checkpoint too) and ``resume``
      refuse a checkpoint of another model, naming the keys (``checkpointing/strict_load.py``).
      A deliberate partial ``load_from`` sets ``load_from_strict = False`` in the config; a
      resume stays strict;
    - checkpoints written as plain data that ``torch.load(weights_only=True)`` reads with no
      allow-list (mmseg's and mmdet's inferencers load them), the message hub's objects made
      again when one is loaded (``checkpointing/plain_data.py``): the hooks see mmengine's
      objects on either side.

    mmengine's private Runner fields are read and written in ``checkpointing/runner_fields.py``
    only.
    """

    @classmethod
    def from_cfg(cls, cfg):
        check_config_keys(cfg)
        return super().from_cfg(with_iteration_seed(grid_config(cfg)))

    def load_or_resume(self) -> None:
        if resumes_without_a_file(self):
            resume_from = checkpoint_to_resume(self.work_dir, written_by_this_run(self))
            set_checkpoint_to_resume(self, resume_from)
        return super().load_or_resume()

    def load_checkpoint(self, filename, map_location='cpu', strict=True, revise_keys=MODULE_PREFIX):
        partial = partial_load_requested(self, filename)
        if partial or not strict:
            return super().load_checkpoint(filename, map_location, False, revise_keys)
        return load_checkpoint_strict(self, filename, map_location, revise_keys)

    def call_hook(self, fn_name: str, **kwargs) -> None:
        if fn_name == 'after_load_checkpoint':  # Runner.resume reads the same dict afterwards
            restore_objects(kwargs['checkpoint'])
        super().call_hook(fn_name, **kwargs)
        if fn_name == 'before_save_checkpoint':  # after every hook has put in its part
            store_as_plain_data(kwargs['checkpoint'])
