"""Data-parallel training of a probe grid (models/probe_grid): the grid runs its own train step
(one backbone pass, each head's backward in turn), which DDP's single forward-backward cannot
express, so the gradients are averaged by the optimizer wrapper (``update_params_in_turn``)
and this wrapper only keeps the ranks' copies equal: the parameters broadcast from rank 0 at
the start, and on CPU (gloo, SyncBN reverted to BN as in cpu_distributed.py) the buffers
before every step, as DDP's ``broadcast_buffers`` does, and before every evaluation, so that all
ranks evaluate with the BN statistics the checkpoint (rank 0's) holds."""

from mmengine.dist import broadcast
from mmengine.model import revert_sync_batchnorm
from mmengine.registry import MODEL_WRAPPERS
from torch import nn


@MODEL_WRAPPERS.register_module()
class ProbeGridDataParallel(nn.Module):
    def __init__(self, module: nn.Module, **ignored):
        super().__init__()
        on_cpu = next(module.parameters()).device.type == 'cpu'
        self.module = revert_sync_batchnorm(module) if on_cpu else module
        self.broadcast_buffers = on_cpu
        for tensor in [*self.module.parameters(), *self.module.buffers()]:
            broadcast(tensor.data, src=0)

    def _share_buffers(self) -> None:
        if self.broadcast_buffers:
            for buffer in self.module.buffers():
                broadcast(buffer.data, src=0)

    def train_step(self, data, optim_wrapper):
        self._share_buffers()
        return self.module.train_step(data, optim_wrapper)

    def val_step(self, data):
        self._share_buffers()
        return self.module.val_step(data)

    def test_step(self, data):
        self._share_buffers()
        return self.module.test_step(data)
