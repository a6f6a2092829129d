"""A new training run never writes over the checkpoints of another model.

mmengine names checkpoints by iteration (``iter_4.pth``) and points ``last_checkpoint`` at the
newest: a run of config B started in a work dir that holds config A's checkpoints replaces
A's files of the same iterations and leaves the pointer naming B's. The work dir lock stops
only concurrent runs; this check stops later ones, before the Runner writes anything.
"""

import os
import os.path as osp

from mmengine.config import Config

from vitspec.config.saved import other_model
from vitspec.errors import ConfigError
from vitspec.fileio import safe_torch_load


def refuse_other_models_checkpoints(cfg: Config) -> None:
    """ConfigError when ``cfg.work_dir`` holds a checkpoint trained as another model than
    ``cfg`` builds, unless the run resumes (``cfg.resume``; the strict load then decides)."""
    work_dir = cfg.get('work_dir')
    if cfg.get('resume') or not work_dir or not osp.isdir(work_dir):
        return
    names = [n for n in os.listdir(work_dir) if n.endswith('.pth')]
    if not names:
        return
    newest = max(names, key=lambda n: osp.getmtime(osp.join(work_dir, n)))
    path = osp.join(work_dir, newest)
    try:
        checkpoint = safe_torch_load(path, mmap=True)
    except Exception:  # not ours to judge here; mmengine would not read it either
        return
    differing = other_model(checkpoint, cfg) if isinstance(checkpoint, dict) else ''
    if differing:
        raise ConfigError(
            f'work dir {work_dir} holds checkpoints of another model ({newest}: {differing}); '
            f'training here would overwrite them and point last_checkpoint at this model. '
            f'Give this run its own --work-dir, or --resume to continue that run.'
        )
