"""The checkpoint that resuming a work dir continues from: ``resume=True`` without
``load_from`` (tools/train.py's ``--resume`` without a file).

mmengine's ``find_latest_checkpoint`` returns None when the work dir has no ``last_checkpoint``
pointer, and the run then trains from iteration 0 ('Auto resumed from the latest checkpoint
None'): a mistyped work dir silently starts over. And it returns the pointer's absolute path as
written, so a copied or moved work dir resumes from the original folder's file.
"""

import os
import os.path as osp

from mmengine.logging import print_log

from vitspec.errors import CheckpointError

POINTER = 'last_checkpoint'
SHOWN = 6


def checkpoint_to_resume(work_dir: str, written_by_this_run=()) -> str:
    """The file the work dir's ``last_checkpoint`` names, taken from the work dir itself when
    a file of that name is there; CheckpointError naming the folder and what it holds
    (``written_by_this_run`` left out) when there is nothing to resume."""
    pointer = osp.join(work_dir, POINTER)
    if not osp.isfile(pointer):
        raise CheckpointError(nothing_to_resume(work_dir, set(written_by_this_run)))
    with open(pointer, encoding='utf-8') as f:
        named = f.read().strip()
    if '://' in named:  # a remote out_dir: mmengine's file backends read it
        return named
    here = osp.join(work_dir, osp.basename(named))
    if osp.isfile(here) and not (osp.exists(named) and osp.samefile(here, named)):
        print_log(
            f'{pointer} names {named}; resuming from {here}, the file of that name in this '
            'work dir (the work dir was copied or moved)',
            logger='current',
        )
        return here
    if not osp.isfile(named):
        raise CheckpointError(
            f'cannot resume: {pointer} names {named}, which does not exist, and {work_dir} '
            f'holds no {osp.basename(named)}; give the checkpoint to resume from: --resume FILE'
        )
    return named


def written_by_this_run(runner) -> tuple:
    """What the run wrote into its work dir before it resumes: its log folder (named by its
    timestamp) and its copy of the config."""
    return runner.timestamp, osp.basename(runner.cfg.filename or f'{runner.timestamp}.py')


def nothing_to_resume(work_dir: str, written_by_this_run: set) -> str:
    entries = sorted(
        name
        for name in os.listdir(work_dir)
        if not name.startswith('.') and name not in written_by_this_run
    )
    checkpoints = [name for name in entries if name.endswith('.pth')]
    message = f'--resume: nothing to resume in {work_dir}: it has no {POINTER} file'
    if checkpoints:
        newest = max(checkpoints, key=lambda name: osp.getmtime(osp.join(work_dir, name)))
        return (
            f'{message}, but holds checkpoints ({shown(checkpoints)}); name the one to resume '
            f'from, e.g. --resume {osp.join(work_dir, newest)}'
        )
    held = f'it holds {shown(entries)}' if entries else 'it is empty'
    message += f' and no checkpoint ({held}, besides what this run wrote)'
    resumable = [
        path
        for path in (
            *(osp.join(work_dir, name) for name in entries),
            *sibling_folders(work_dir),
        )
        if osp.isfile(osp.join(path, POINTER))
    ]
    if resumable:
        message += f'. Folders with a checkpoint to resume: {shown(resumable)} (--work-dir)'
    return (
        message + '. To start a new run, leave out --resume (resume=False); to resume, give '
        'the work dir of that run (--work-dir DIR) or a checkpoint (--resume FILE).'
    )


def sibling_folders(work_dir: str) -> list:
    parent = osp.dirname(osp.normpath(work_dir))
    here = osp.basename(osp.normpath(work_dir))
    try:
        names = sorted(os.listdir(parent))
    except OSError:
        return []
    return [osp.join(parent, name) for name in names if name != here]


def shown(names: list) -> str:
    more = f' and {len(names) - SHOWN} more' if len(names) > SHOWN else ''
    return ', '.join(names[:SHOWN]) + more
