"""``torch.compile`` for a run, in training and in test (tools/train.py and tools/test.py turn
it on with ``--compile``).

mmengine's Runner compiles the model's ``train_step`` when the config sets ``compile`` (True, or
a dict of ``torch.compile`` keyword arguments such as ``backend`` or ``mode``), in ``train()``
only; its test loop runs ``test_step`` uncompiled, so that one is compiled here.
"""

import torch
from mmengine.config import Config
from mmengine.logging import print_log


def enable_compile(cfg: Config) -> Config:
    """``cfg.compile`` switched on, keeping the options the config (or --cfg-options) gave."""
    if not isinstance(cfg.get('compile'), dict):
        cfg.compile = True
    return cfg


def compile_options(cfg: Config):
    """The ``torch.compile`` keyword arguments ``cfg.compile`` asks for, or None: no compile."""
    given = cfg.get('compile')
    if given is None or given is False:
        return None
    if given is True:
        return {}
    if not isinstance(given, dict):
        raise TypeError(
            f'compile must be True, False or a dict of torch.compile options: {given!r}'
        )
    return dict(given)


def compile_test_step(runner) -> None:
    """The model's ``test_step`` compiled with the config's options (the counterpart of what
    mmengine does to ``train_step``); nothing when the config does not ask for it."""
    options = compile_options(runner.cfg)
    if options is None:
        return
    runner.model.test_step = torch.compile(runner.model.test_step, **options)
    print_log(f'test_step compiled with torch.compile options {options}', logger='current')
