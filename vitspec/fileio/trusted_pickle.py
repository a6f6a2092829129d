"""The explicit opt-in for a checkpoint the user made themselves: full unpickling, loudly logged.

Never a default. A file is trusted only when the caller says so (``trust_pickle=True``, e.g.
``tools/convert_checkpoint.py --trust-pickle``) or when its path is listed in the environment
variable below (for ``load_from`` / ``init_cfg=dict(type='Pretrained')``, which mmengine reads
without asking us): ``VITSPEC_TRUST_PICKLE=/runs/mae/checkpoint-799.pth``; several paths are
separated by ``os.pathsep``.
"""

import logging
import os
import os.path as osp

import torch
from mmengine.logging import print_log

TRUST_ENV = 'VITSPEC_TRUST_PICKLE'


def trusted_by_env(filename: str) -> bool:
    listed = os.environ.get(TRUST_ENV, '').split(os.pathsep)
    return osp.realpath(filename) in {osp.realpath(p) for p in listed if p}


def load_trusted_pickle(filename: str, map_location, needed: list):
    """``torch.load(weights_only=False)``, after a WARNING naming the file and what it needs."""
    print_log(
        f'{filename} needs unpickling of globals outside the allow-list '
        f'({", ".join(needed) or "see the unpickler"}) and was explicitly trusted: loading it '
        f'with full unpickling, which WILL RUN any code stored in the pickle. Do this only for '
        f'a file you made yourself.',
        logger='current',
        level=logging.WARNING,
    )
    return torch.load(filename, map_location=map_location, weights_only=False)
