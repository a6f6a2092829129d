"""The op counter of the benchmark and the autocast cost tests, on single ops whose dispatcher
calls are known."""

import torch
import torch.nn.functional as F

from vitspec.benchmarking.op_counts import flop_count, op_counts


def test_views_are_counted_apart_from_kernels():
    x = torch.randn(2, 3, 4, requires_grad=True)
    counts = op_counts(lambda x: x.transpose(1, 2).exp(), (x,))
    assert counts.by_name['transpose'] >= 1 and counts.by_name['exp'] == 1
    assert counts.views['transpose'] == counts.by_name['transpose']
    assert 'exp' not in counts.views and 'mul' not in counts.views  # exp's backward: mul
    assert counts.kernels == counts.total - sum(counts.views.values())


def test_casts_under_autocast_and_those_of_whole_activations():
    linear = torch.nn.Linear(8, 4)
    x = torch.randn(2, 5, 8)
    fp32 = op_counts(linear, (x,))
    bf16 = op_counts(linear, (x,), torch.bfloat16)
    assert fp32.casts == 0 and fp32.gemms == bf16.gemms >= 2  # forward GEMM, weight gradient
    assert bf16.casts >= 3  # x, weight, bias into bf16 (and the gradients back)
    # x into bf16, the output into float32 for the loss and its gradient back: not the weight's
    # and bias's casts
    assert bf16.activation_casts(2, 5) == 3 < bf16.casts


def test_the_attention_kernel_that_ran_is_named():
    q = torch.randn(2, 2, 9, 8, requires_grad=True)

    def sdpa(mask):
        return lambda q: F.scaled_dot_product_attention(q, q, q, attn_mask=mask)

    assert op_counts(sdpa(None), (q,)).attention == 'flash_for_cpu'
    # a learned bias (relative position) needs the mask's gradient: the CPU flash kernel has none
    learned = torch.zeros(9, 9, requires_grad=True)
    assert op_counts(sdpa(learned), (q,)).attention == 'math'

    def written_out(q):
        return (q @ q.transpose(-1, -2)).softmax(-1) @ q

    assert op_counts(written_out, (q,)).attention == 'math'


def test_flops_count_the_gemms_of_forward_and_backward():
    linear = torch.nn.Linear(8, 4, bias=False)
    x = torch.randn(10, 8, requires_grad=True)
    # forward 2*10*8*4, backward twice that (input and weight gradients)
    assert flop_count(linear, (x,)) == 3 * 2 * 10 * 8 * 4
    assert flop_count(linear, (x,), torch.bfloat16) == 3 * 2 * 10 * 8 * 4
