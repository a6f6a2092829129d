"""Linear probing: the backbone stays exactly as loaded while the head trains."""

from mmengine.dist import broadcast
from mmengine.hooks import Hook
from mmengine.model import is_model_wrapper
from mmengine.registry import HOOKS
from torch import nn

from vitspec.errors import BackboneNotFrozenError
from vitspec.models.probe_grid import ProbeGrid, reinitialize, trained_parts


@HOOKS.register_module()
class LinearProbeHook(Hook):
    """Guards a frozen-backbone run; the freezing itself happens when the model is built
    (SpecViT ``frozen_stages=num_layers``), before DDP records which parameters train.

    Before training it fails if any backbone parameter requires grad or sits in the
    optimizer; before every training iteration it puts the backbone back in eval mode, so
    norms, dropout and drop-path behave as at test time whatever ``train()`` the runner called.

    ``train_mode_iters`` (a reproduction mode, 0 by default) leaves every backbone module in
    train mode for that many first iterations, as facebookresearch/dinov3's
    dinov3/eval/depth/train.py does: it calls ``depther.train()`` before training, and only its
    first validation puts the backbone in eval mode. Its parameters stay frozen either way.
    """

    priority = 'VERY_HIGH'

    def __init__(self, backbone: str = 'backbone', train_mode_iters: int = 0):
        self.backbone = backbone
        self.train_mode_iters = train_mode_iters

    def _backbone(self, runner):
        model = runner.model.module if is_model_wrapper(runner.model) else runner.model
        return getattr(model, self.backbone)

    def before_train(self, runner) -> None:
        self._check_frozen(runner)
        self._initialize_head(runner)

    def _check_frozen(self, runner) -> None:
        backbone = self._backbone(runner)
        trainable = [n for n, p in backbone.named_parameters() if p.requires_grad]
        if trainable:
            raise BackboneNotFrozenError(
                f'linear probe: {len(trainable)} backbone parameters still train '
                f'(e.g. {trainable[:3]}); build the backbone frozen (SpecViT: frozen_stages = '
                f'num_layers)'
            )
        frozen = {id(p) for p in backbone.parameters()}
        optimized = [
            p
            for group in runner.optim_wrapper.param_groups
            for p in group['params']
            if id(p) in frozen
        ]
        if optimized:
            raise BackboneNotFrozenError(
                f'linear probe: the optimizer holds {len(optimized)} backbone parameters'
            )

    def _initialize_head(self, runner) -> None:
        """A fresh probe's head is initialized from the run's seed alone (random_draws.py), so
        that it starts where the same head of a probe grid starts; a resumed run, or one that
        loads a checkpoint, keeps the head it loaded."""
        if runner.iter > 0 or runner.cfg.get('load_from') or runner.cfg.get('resume'):
            return
        model = runner.model.module if is_model_wrapper(runner.model) else runner.model
        probes = model.probes.values() if isinstance(model, ProbeGrid) else [model]
        for probe in probes:
            parts = trained_parts(probe)
            reinitialize(parts, runner.seed)
            for part in parts:  # with per-rank seeds (diff_rank_seed), every rank takes rank 0's
                for tensor in [*part.parameters(), *part.buffers()]:
                    broadcast(tensor.data, src=0)

    def before_train_iter(self, runner, batch_idx: int, data_batch=None) -> None:
        backbone = self._backbone(runner)
        if runner.iter < self.train_mode_iters:
            nn.Module.train(backbone, True)  # every module, past a backbone's own freezing train()
        else:
            backbone.eval()
