from .chunked_encoder_decoder import ChunkedEncoderDecoder
from .chunked_seg_tta import ChunkedSegTTAModel
from .eomt import EoMT

__all__ = ['ChunkedEncoderDecoder', 'ChunkedSegTTAModel', 'EoMT']
