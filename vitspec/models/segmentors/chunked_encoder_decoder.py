"""mmseg's EncoderDecoder whose label map at the original image size is computed in row bands.

mmseg's ``postprocess_result`` upsamples all class scores to the original image size before the
argmax: 150 classes of a 5000 x 5000 image are 15 GB of float32. Here at most
``max_chunk_bytes`` of upsampled scores exist at a time (256 MiB by default, at least one full
row), besides the label map itself (int64, as mmseg's: 8 bytes per pixel).
"""

import torch
from mmengine.structures import PixelData
from mmseg.models.segmentors import EncoderDecoder
from mmseg.registry import MODELS

from .model_resolution import unpadded_unflipped
from .row_resize import DEFAULT_CHUNK_BYTES, resized_rows, row_bands


@MODELS.register_module()
class ChunkedEncoderDecoder(EncoderDecoder):
    """EncoderDecoder with a memory-bounded ``postprocess_result``.

    ``pred_sem_seg`` is mmseg's (bilinear resize to ``ori_shape`` with the head's
    ``align_corners``, then argmax) up to float rounding, which can only change a pixel whose
    two best scores tie within it. ``seg_logits`` stays at the model's resolution (padding
    removed, flip undone), where mmseg stores it at the original size; ChunkedSegTTAModel
    merges test-time augmentations from it. One-channel (sigmoid) outputs and calls without
    data samples go through mmseg's own postprocess.

    Args:
        max_chunk_bytes: the most bytes of upsampled class scores held at once.
        **kwargs: EncoderDecoder's arguments.
    """

    def __init__(self, *args, max_chunk_bytes: int = DEFAULT_CHUNK_BYTES, **kwargs):
        super().__init__(*args, **kwargs)
        self.max_chunk_bytes = max_chunk_bytes

    def postprocess_result(self, seg_logits, data_samples=None):
        if data_samples is None or seg_logits.shape[1] == 1:
            return super().postprocess_result(seg_logits, data_samples)
        for scores, sample in zip(seg_logits, data_samples):
            scores = unpadded_unflipped(scores, sample.metainfo)
            labels = self.label_map(scores, tuple(sample.metainfo['ori_shape']))
            sample.set_data(dict(seg_logits=PixelData(data=scores), pred_sem_seg=labels))
        return data_samples

    def label_map(self, scores, out_size) -> PixelData:
        """argmax over classes of ``scores`` (C, h, w) resized to ``out_size``, in row bands."""
        labels = torch.empty((1, *out_size), dtype=torch.long, device=scores.device)
        bands = row_bands(out_size, scores.shape[0], scores.element_size(), self.max_chunk_bytes)
        for start, stop in bands:  # one band alive at a time: no name keeps the last one
            band_scores = resized_rows(scores, out_size, start, stop, self.align_corners)
            labels[0, start:stop] = band_scores.argmax(dim=0)
            del band_scores
        return PixelData(data=labels)
