"""Linear probing: the backbone stays exactly as loaded while the head trains."""

from mmengine.hooks import Hook
from mmengine.model import is_model_wrapper
from mmengine.registry import HOOKS

from vitspec.errors import BackboneNotFrozenError


@HOOKS.register_module()
class LinearProbeHook(Hook):
    """Guards a frozen-backbone run; the freezing itself happens when the model is built
    (SpecViT ``frozen_stages=num_layers``), before DDP records which parameters train.

    Before training it fails if any backbone parameter requires grad or sits in the
    optimizer; before every training iteration it puts the backbone back in eval mode, so
    norms, dropout and drop-path behave as at test time whatever ``train()`` the runner called.
    """

    priority = 'VERY_HIGH'

    def __init__(self, backbone: str = 'backbone'):
        self.backbone = backbone

    def _backbone(self, runner):
        model = runner.model.module if is_model_wrapper(runner.model) else runner.model
        return getattr(model, self.backbone)

    def before_train(self, runner) -> None:
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

    def before_train_iter(self, runner, batch_idx: int, data_batch=None) -> None:
        self._backbone(runner).eval()
