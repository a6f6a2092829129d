"""Helpers shared by the tests (import as ``from tests.utils import ...``)."""

import importlib.util
import os
import signal
import socket
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import torch
from mmengine.config import Config
from mmengine.logging import MMLogger
from mmengine.optim import build_optim_wrapper
from mmengine.registry import PARAM_SCHEDULERS
from mmengine.utils import ManagerMixin
from torch.utils.data import Dataset

from vitspec.demo import DATA_ROOTS, write_datasets

ROOT = Path(__file__).resolve().parents[1]
REALDATA = ROOT.parent / 'shared' / 'realdata'


def load_tool(name: str):
    """The module of ``tools/<name>.py`` (tools/ is no package): its functions and ``main``."""
    spec = importlib.util.spec_from_file_location(f'tools_{name}', ROOT / 'tools' / f'{name}.py')
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def free_port() -> int:
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def run_tool(args, timeout=900, env=None, check=True):
    """Run a repo tool (a path under tools/) as a user would, returning the completed process."""
    full_env = dict(os.environ, PORT=str(free_port()), PYTHON=sys.executable, **(env or {}))
    cmd = [str(ROOT / args[0]), *map(str, args[1:])]
    if cmd[0].endswith('.py'):
        cmd.insert(0, sys.executable)
    # Its own process group, killed whole when the test stops waiting (a timeout, pytest-timeout,
    # Ctrl-C): otherwise torchrun's ranks outlive it and slow down every test after.
    with subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as child:
        try:
            stdout, stderr = child.communicate(timeout=timeout)
        except BaseException:
            os.killpg(child.pid, signal.SIGKILL)
            raise
    proc = subprocess.CompletedProcess(cmd, child.returncode, stdout, stderr)
    if check and proc.returncode != 0:
        raise AssertionError(
            f'{" ".join(cmd)} failed ({proc.returncode}):\n'
            f'{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}'
        )
    return proc


def make_demo_data(out: Path, dataset: str, num_train: int, num_val: int, seed: int = 1) -> Path:
    """Write tools/make_demo_data.py's procedural `dataset` under `out`; returns its data root.
    In this process (the tool's own test runs the script): a Python start that imports torch and
    OpenMMLab costs 10-30 s of CPU on a busy 2-core host."""
    write_datasets(out, [dataset], seed, num_train, num_val)
    return Path(out) / DATA_ROOTS[dataset]


def managed_classes(cls=ManagerMixin):
    """mmengine's global-instance classes (DefaultScope, MessageHub, Visualizer, ...)."""
    for sub in cls.__subclasses__():
        yield sub
        yield from managed_classes(sub)


@contextmanager
def restored_mmengine_instances():
    """Undo the global instances created inside: a Runner or `get_instance` leaves a current
    default scope, message hub and visualizer behind, which registry builds and hooks would pick
    up later. Loggers stay (their handlers hold open files)."""
    saved = {
        cls: vars(cls)['_instance_dict'].copy()
        for cls in set(managed_classes())
        if not issubclass(cls, MMLogger)
    }
    try:
        yield
    finally:
        for cls in set(managed_classes()):
            if issubclass(cls, MMLogger) or '_instance_dict' not in vars(cls):
                continue
            # a class first imported inside (mmseg's visualizer, by a Runner) starts empty
            cls._instance_dict = saved.get(cls, {})


def perturbed(model):
    """Random init plus noise everywhere (LayerScale starts at 1e-5: make every branch count)."""
    torch.manual_seed(0)
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.add_(torch.randn_like(p) * (0.3 if 'gamma' in name else 0.02))
    return model.eval()


def schedule_trace(path):
    """The lr and beta1 of a schedule config's optimizer at each of its ``train_cfg.max_iters``
    iterations, its ``param_scheduler`` stepped after each one as training steps it."""
    cfg = Config.fromfile(path)
    wrapper = build_optim_wrapper(
        torch.nn.Linear(1, 1), dict(type='OptimWrapper', optimizer=cfg.optim_wrapper.optimizer)
    )
    schedulers = [PARAM_SCHEDULERS.build(dict(s, optimizer=wrapper)) for s in cfg.param_scheduler]
    wrapper.step()  # as training does before the first scheduler step (no grads: no-op)
    lrs, betas = [], []
    for _ in range(cfg.train_cfg.max_iters):
        group = wrapper.optimizer.param_groups[0]
        lrs.append(group['lr'])
        betas.append(group['betas'][0])
        for scheduler in schedulers:
            scheduler.step()
    return lrs, betas


class Ones(Dataset):
    """``length`` samples of ``inputs=torch.ones(2)``: the data of the tiny-runner tests."""

    def __init__(self, length: int):
        self.length = length

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        return dict(inputs=torch.ones(2))


def ones_loader(length: int) -> dict:
    """A Runner's train_dataloader over `Ones`, one sample a step, endless."""
    return dict(
        dataset=Ones(length),
        batch_size=1,
        collate_fn=dict(type='default_collate'),
        sampler=dict(type='InfiniteSampler', shuffle=False),
    )


def output_checks(monkeypatch, *modules) -> list:
    """The paths the output policy's ``check_output`` is called with from now on, in
    vitspec.fileio.outputs and in ``modules`` (those that imported it by name)."""
    from vitspec.fileio import outputs

    checked, check = [], outputs.check_output

    def counted(value, *args, **kwargs):
        checked.append(value)
        return check(value, *args, **kwargs)

    for module in (outputs, *modules):
        monkeypatch.setattr(module, 'check_output', counted)
    return checked
