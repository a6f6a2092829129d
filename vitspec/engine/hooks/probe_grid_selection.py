"""The heads of a probe grid side by side after every evaluation, and the best one written, at
the end, as an ordinary checkpoint of its own single-probe config.

``best_probe.pth`` in the work dir holds the backbone and that head's weights under the keys its
single config's model has, with that config as ``meta['cfg']``, so tools/test.py, tools/infer.py,
tools/export.py and ``--compare`` take it as any probe; ``best_probe.py`` is that config and
``probe_grid.json`` every evaluation of every head. The best head is chosen on the split the
config evaluates on (the papers choose their probes' settings this way); docs/probe_grids.md
shows how to choose on a held-out part of the training set instead.
"""

import io
import json
import os.path as osp

from mmengine.hooks import Hook
from mmengine.logging import print_log
from mmengine.model import is_model_wrapper
from mmengine.registry import HOOKS

from vitspec.errors import ConfigError, OutputPathError
from vitspec.fileio.atomic_write import atomic_torch_save, atomic_write_bytes

OUTPUTS = ('best_probe.pth', 'best_probe.py', 'probe_grid.json')


@HOOKS.register_module()
class ProbeGridSelectionHook(Hook):
    """``select``: (metric key, 'greater' or 'less'); ``configs``: head name -> its single-probe
    config's text (vitspec/config/probe_grid.py writes both)."""

    priority = 'LOW'

    def __init__(self, select, configs: dict):
        self.key, self.rule = select
        self.configs = dict(configs)
        self.history = []

    def before_train(self, runner) -> None:
        if runner.iter > 0:
            return
        present = [n for n in OUTPUTS if osp.exists(osp.join(runner.work_dir, n))]
        if present:
            raise OutputPathError(
                f'{runner.work_dir} already holds {", ".join(present)} of an earlier probe grid; '
                f'move them or train into another --work-dir'
            )

    def after_val_epoch(self, runner, metrics=None) -> None:
        if not metrics:
            return
        scores = {}
        for name in self.configs:
            key = f'{name}/{self.key}'
            if key not in metrics:
                raise ConfigError(
                    f'probe grid: the evaluation gave no {self.key!r} for head {name!r} '
                    f'(its keys: {sorted(k for k in metrics if k.startswith(name + "/"))}); '
                    f'set probe_grid.select to one of them'
                )
            scores[name] = float(metrics[key])
        self.history.append(dict(iter=runner.iter, scores=scores))
        width = max(len(n) for n in scores)
        best = self._best(scores)
        lines = [
            f'{name:<{width}}  {value:.4f}{"  <- best" if name == best else ""}'
            for name, value in scores.items()
        ]
        print_log(
            f'probe grid at iteration {runner.iter}, {self.key} ({self.rule} is better):\n'
            + '\n'.join(lines),
            logger='current',
        )

    def after_train(self, runner) -> None:
        if not self.history:
            print_log(
                'probe grid: no evaluation ran, so no head was chosen (set train_cfg.val_interval '
                'to reach the last iteration)',
                logger='current',
                level=30,
            )
            return
        if runner.rank != 0:
            return
        scores = self.history[-1]['scores']
        best = self._best(scores)
        model = runner.model.module if is_model_wrapper(runner.model) else runner.model
        state = {f'backbone.{k}': v for k, v in model.backbone.state_dict().items()}
        state.update(model.probes[best].state_dict())
        meta = dict(
            cfg=self.configs[best],
            dataset_meta=getattr(runner.train_dataloader.dataset, 'metainfo', None),
            probe_grid=dict(head=best, metric=self.key, value=scores[best], iter=runner.iter),
        )
        state = {k: v.detach().cpu() for k, v in state.items()}
        atomic_torch_save(dict(meta=meta, state_dict=state), osp.join(runner.work_dir, OUTPUTS[0]))
        atomic_write_bytes(self.configs[best].encode(), osp.join(runner.work_dir, OUTPUTS[1]))
        record = io.StringIO()
        json.dump(
            dict(select=[self.key, self.rule], best=best, history=self.history), record, indent=1
        )
        atomic_write_bytes(record.getvalue().encode(), osp.join(runner.work_dir, OUTPUTS[2]))
        print_log(
            f'probe grid: best head {best!r} ({self.key} {scores[best]:.4f}) written as '
            f'{osp.join(runner.work_dir, OUTPUTS[0])} with its config {OUTPUTS[1]}',
            logger='current',
        )

    def _best(self, scores: dict) -> str:
        pick = max if self.rule == 'greater' else min
        return pick(scores, key=scores.get)
