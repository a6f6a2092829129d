"""Segmentors: mmseg's encoder-decoder and its test-time augmentation, with the label map at
the original image size computed in row bands."""

from .chunked_encoder_decoder import ChunkedEncoderDecoder
from .chunked_seg_tta import ChunkedSegTTAModel

__all__ = ['ChunkedEncoderDecoder', 'ChunkedSegTTAModel']
