from .chunked_encoder_decoder import ChunkedEncoderDecoder
from .chunked_seg_tta import ChunkedSegTTAModel

__all__ = ['ChunkedEncoderDecoder', 'ChunkedSegTTAModel']
