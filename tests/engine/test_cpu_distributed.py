"""CPU ranks (gloo): the model wrapper the launcher names reverts SyncBN to BN before DDP."""

import torch
import torch.distributed as dist
from mmengine.registry import MODEL_WRAPPERS
from torch import nn

import vitspec  # noqa: F401  registers CPUDistributedDataParallel


def test_syncbn_reverted_and_buffers_broadcast(tmp_path):
    store = dist.FileStore(str(tmp_path / 'store'), 1)
    dist.init_process_group('gloo', store=store, rank=0, world_size=1)
    try:
        model = nn.Sequential(nn.Conv2d(3, 4, 1), nn.SyncBatchNorm(4))
        wrapped = MODEL_WRAPPERS.build(
            dict(type='CPUDistributedDataParallel'), default_args=dict(module=model, device_ids=[0])
        )
        assert not any(isinstance(m, nn.SyncBatchNorm) for m in wrapped.modules())
        assert wrapped.device_ids is None and wrapped.broadcast_buffers
        wrapped(torch.randn(2, 3, 5, 5)).sum().backward()  # trains on CPU
    finally:
        dist.destroy_process_group()
