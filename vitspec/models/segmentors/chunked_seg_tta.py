"""mmseg's SegTTAModel merging augmentations a band of output rows at a time.

SegTTAModel averages the softmax of each augmentation's class scores at the original image
size, which ChunkedEncoderDecoder does not keep (its ``seg_logits`` are at the model's
resolution, one size per test scale). This merge resizes each augmentation's scores to the
original size band by band, with the same bound as ChunkedEncoderDecoder.
"""

from typing import List

import torch
from mmengine.structures import PixelData
from mmseg.models.segmentors import SegTTAModel
from mmseg.registry import MODELS

from .row_resize import DEFAULT_CHUNK_BYTES, resized_rows, row_bands


@MODELS.register_module()
class ChunkedSegTTAModel(SegTTAModel):
    """SegTTAModel (softmax average over augmentations, then argmax) from scores of any
    resolution, holding at most ``max_chunk_bytes`` of upsampled scores per augmentation at
    once. One-channel outputs are merged by SegTTAModel itself."""

    def __init__(self, *args, max_chunk_bytes: int = DEFAULT_CHUNK_BYTES, **kwargs):
        super().__init__(*args, **kwargs)
        self.max_chunk_bytes = max_chunk_bytes

    def merge_preds(self, data_samples_list: List[list]) -> list:
        if self.module.out_channels == 1:
            return super().merge_preds(data_samples_list)
        return [self.merge_one(samples) for samples in data_samples_list]

    def merge_one(self, samples: list):
        """The augmentations of one image merged into its last sample, as SegTTAModel does."""
        scores = [sample.seg_logits.data for sample in samples]
        out_size = tuple(samples[0].metainfo['ori_shape'])
        first = scores[0]
        labels = torch.empty((1, *out_size), dtype=torch.long, device=first.device)
        bands = row_bands(out_size, first.shape[0], first.element_size(), self.max_chunk_bytes)
        for start, stop in bands:
            total = first.new_zeros((first.shape[0], stop - start, out_size[1]))
            for one in scores:
                total += resized_rows(
                    one, out_size, start, stop, self.module.align_corners
                ).softmax(dim=0)
            total /= len(scores)
            labels[0, start:stop] = total.argmax(dim=0)
            del total
        merged = samples[-1]
        merged.set_data(dict(pred_sem_seg=PixelData(data=labels)))
        if 'gt_sem_seg' in samples[0]:
            merged.set_data(dict(gt_sem_seg=samples[0].gt_sem_seg))
        merged.set_metainfo(dict(img_path=samples[0].img_path))
        return merged
