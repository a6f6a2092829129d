"""DDP over CPU processes (gloo), where SyncBN cannot run."""

from mmengine.model import MMDistributedDataParallel, revert_sync_batchnorm
from mmengine.registry import MODEL_WRAPPERS


@MODEL_WRAPPERS.register_module()
class CPUDistributedDataParallel(MMDistributedDataParallel):
    """MMDistributedDataParallel for CPU ranks: SyncBN layers become BN (mmengine's
    ``revert_sync_batchnorm``; SyncBN needs CUDA), and buffers are broadcast from rank 0 so that
    every rank, and the saved checkpoint, hold the same BN running statistics.

    CPU processes have no device ids: the Runner's default ``device_ids`` is dropped.
    """

    def __init__(self, module, device_ids=None, broadcast_buffers: bool = True, **kwargs):
        super().__init__(
            module=revert_sync_batchnorm(module),
            device_ids=None,
            broadcast_buffers=broadcast_buffers,
            **kwargs,
        )
