"""Plain-DETR (impiga/Plain-DETR, ICCV 2023) and DINOv3's detector built on it, on SpecViT: the
detector, its transformer head, backbone features (DINOv3's layers and windows), BoxRPB
cross-attention, the decoder, two-stage proposals, reparameterized box coding, matching and
losses, and the released DINOv3 COCO head's key layout. Importing it registers PlainDETR."""

from .detector import PlainDETR
from .head import PlainDetrHead

__all__ = ['PlainDETR', 'PlainDetrHead']
