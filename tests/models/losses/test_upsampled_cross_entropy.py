"""The banded cross-entropy against the full-size resize and F.cross_entropy it stands for."""

import pytest
import torch
import torch.nn.functional as F

from vitspec.models.losses.upsampled_cross_entropy import upsampled_cross_entropy


def full_size_reference(logits, labels, ignore_index, align_corners, avg_non_ignore):
    up = F.interpolate(logits, labels.shape[1:], mode='bilinear', align_corners=align_corners)
    per_pixel = F.cross_entropy(up, labels, ignore_index=ignore_index, reduction='none')
    valid = labels != ignore_index
    divisor = valid.sum() if avg_non_ignore else labels.numel()
    loss = per_pixel.sum() / (divisor + torch.finfo(torch.float32).eps)
    correct = (up.argmax(1) == labels)[valid].sum()
    return loss, correct, valid.sum()


def case(size=(3, 5, 7, 6), out=(29, 23), seed=0):
    gen = torch.Generator().manual_seed(seed)
    b, c, h, w = size
    logits = torch.randn(size, generator=gen) * 3
    labels = torch.randint(0, c, (b, *out), generator=gen)
    labels[torch.rand((b, *out), generator=gen) < 0.3] = 255
    return logits, labels


@pytest.mark.parametrize('align_corners', [False, True])
@pytest.mark.parametrize('avg_non_ignore', [False, True])
@pytest.mark.parametrize('band_bytes', [1, 3 * 5 * 23 * 4 * 7, 2**30])  # 1 row, 7 rows, all
def test_loss_gradient_and_hits_equal_the_full_size_computation(
    align_corners, avg_non_ignore, band_bytes
):
    logits, labels = case()
    x = logits.clone().requires_grad_()
    got = upsampled_cross_entropy(x, labels, 255, align_corners, avg_non_ignore, band_bytes)
    got.loss.backward()
    y = logits.clone().requires_grad_()
    loss, correct, counted = full_size_reference(y, labels, 255, align_corners, avg_non_ignore)
    loss.backward()
    torch.testing.assert_close(got.loss, loss, rtol=1e-6, atol=1e-7)
    torch.testing.assert_close(x.grad, y.grad, rtol=1e-5, atol=1e-9)
    assert got.correct == correct and got.counted == counted


def test_downsampling_and_a_label_map_of_one_row():
    for out in [(3, 2), (1, 9)]:
        logits, labels = case(out=out, seed=1)
        got = upsampled_cross_entropy(logits, labels)
        loss, correct, _ = full_size_reference(logits, labels, 255, False, False)
        torch.testing.assert_close(got.loss, loss)
        assert got.correct == correct


def test_all_ignored_gives_zero_loss_and_zero_gradient():
    logits = torch.randn(2, 4, 3, 3, requires_grad=True)
    labels = torch.full((2, 8, 8), 255)
    got = upsampled_cross_entropy(logits, labels, avg_non_ignore=True)
    got.loss.backward()
    assert got.loss == 0 and got.counted == 0 and not logits.grad.any()


def test_bf16_logits_give_a_bf16_gradient_of_the_float32_loss():
    logits, labels = case(seed=2)
    x = logits.bfloat16().requires_grad_()
    got = upsampled_cross_entropy(x, labels)
    got.loss.backward()
    assert got.loss.dtype == torch.float32 and x.grad.dtype == torch.bfloat16
    y = logits.bfloat16().float().requires_grad_()
    loss, _, _ = full_size_reference(y, labels, 255, False, False)
    loss.backward()
    torch.testing.assert_close(got.loss, loss)
    torch.testing.assert_close(x.grad.float(), y.grad, rtol=1e-2, atol=1e-5)


def test_labels_outside_the_classes_are_named():
    logits, labels = case()
    labels[0, 0, 0] = 6
    labels[1, 0, 0] = -1
    with pytest.raises(ValueError, match=r'\[-1, 6\] are neither classes \[0, 5\)'):
        upsampled_cross_entropy(logits, labels)


def test_autocast_around_forward_and_backward_changes_nothing():
    """The resize's matrix products stay float32 under autocast, in the backward too (a grid
    head's backward may run inside the training step's autocast)."""
    logits, labels = case(seed=3)
    x = logits.clone().requires_grad_()
    fp32 = upsampled_cross_entropy(x, labels)
    fp32.loss.backward()
    y = logits.clone().requires_grad_()
    with torch.autocast('cpu', dtype=torch.bfloat16):
        mixed = upsampled_cross_entropy(y, labels)
        mixed.loss.backward()
    assert torch.equal(mixed.loss, fp32.loss) and torch.equal(y.grad, x.grad)


def test_a_loss_scale_reaches_float16_gradients_that_would_underflow_unscaled():
    """Per-pixel gradients of a large label map are below float16's range; the scale a
    GradScaler puts on the loss must multiply them before they are cast."""
    logits, _ = case(size=(1, 3, 4, 4), seed=4)
    labels = torch.zeros(1, 512, 512, dtype=torch.long)
    x = logits.half().requires_grad_()
    (upsampled_cross_entropy(x, labels).loss * 2.0**16).backward()
    y = logits.half().float().requires_grad_()
    (full_size_reference(y, labels, 255, False, False)[0] * 2.0**16).backward()
    assert x.grad.dtype == torch.float16 and x.grad.abs().min() > 0
    torch.testing.assert_close(x.grad.float(), y.grad, rtol=2e-3, atol=1e-6)


def test_compiled_equals_eager():
    """``--compile`` traces a probe's training step through the loss's autograd function."""
    logits, labels = case(seed=5)

    def step(x):
        out = upsampled_cross_entropy(x, labels, band_bytes=3 * 5 * 23 * 4 * 7)
        out.loss.backward()
        return out.loss.detach(), out.correct

    x = logits.clone().requires_grad_()
    eager = step(x)
    torch._dynamo.reset()
    y = logits.clone().requires_grad_()
    compiled = torch.compile(step, backend='aot_eager')(y)
    assert torch.equal(compiled[0], eager[0]) and compiled[1] == eager[1]
    assert torch.equal(y.grad, x.grad)
