"""A decode head's training loss without full-size logits (`upsampled_cross_entropy`)."""

import torch
from mmseg.models.losses import CrossEntropyLoss

from ..losses.upsampled_cross_entropy import upsampled_cross_entropy


def is_plain_cross_entropy(loss) -> bool:
    """mmseg's softmax CrossEntropyLoss, mean-reduced, without class weights."""
    return (
        type(loss) is CrossEntropyLoss
        and not loss.use_sigmoid
        and not loss.use_mask
        and loss.class_weight is None
        and loss.reduction == 'mean'
    )


class BandedSegLoss:
    """Mixin for an mmseg decode head: ``loss_by_feat`` computes mmseg's loss and ``acc_seg``
    (bilinear resize to the label size, cross-entropy, top-1 accuracy) a band of rows at a time
    when the head's loss is a plain CrossEntropyLoss and it has no pixel sampler; other losses
    go through mmseg's own ``loss_by_feat``. The values equal mmseg's up to float rounding (a
    pixel's argmax may differ where its two best logits tie within it)."""

    def loss_by_feat(self, seg_logits, batch_data_samples) -> dict:
        loss = self.loss_decode
        if self.sampler is not None or not is_plain_cross_entropy(loss):
            return super().loss_by_feat(seg_logits, batch_data_samples)
        labels = self._stack_batch_gt(batch_data_samples).squeeze(1)
        out = upsampled_cross_entropy(
            seg_logits, labels, self.ignore_index, self.align_corners, loss.avg_non_ignore
        )
        eps = torch.finfo(torch.float32).eps
        accuracy = (out.correct.float() + eps) * (100.0 / (out.counted.float() + eps))
        return {loss.loss_name: loss.loss_weight * out.loss, 'acc_seg': accuracy.reshape(1)}
