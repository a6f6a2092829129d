import pytest
import torch

from vitspec.layers import Attention, TalkingHeadAttention, TokenLayout

DIM, HEADS, HW = 16, 2, (3, 4)


def explicit_attention(attn, x, mask, bias=None):
    B, N, C = x.shape
    q, k, v = attn.qkv(x).reshape(B, N, 3, HEADS, C // HEADS).permute(2, 0, 3, 1, 4)
    logits = q @ k.transpose(-2, -1) * (C // HEADS) ** -0.5
    if bias is not None:
        logits = logits + bias
    logits = logits.masked_fill(~mask[:, None], float('-inf'))
    y = (logits.softmax(-1) @ v).transpose(1, 2).reshape(B, N, C)
    return attn.proj(y)


def random_mask(B, N):
    mask = torch.rand(B, N, N) > 0.5
    return mask | torch.eye(N, dtype=torch.bool)  # every token sees at least itself


@pytest.mark.parametrize('mode', ['fp32', 'bf16'])
def test_global_attention_honours_the_layout_mask(mode):
    torch.manual_seed(0)
    attn = Attention(DIM, HEADS)
    x = torch.randn(2, 1 + HW[0] * HW[1], DIM)
    mask = random_mask(2, x.shape[1])
    with torch.autocast('cpu', dtype=torch.bfloat16, enabled=mode == 'bf16'):
        out = attn(x, TokenLayout(1, HW, attn_mask=mask))
    expected = explicit_attention(attn, x, mask)
    tol = dict(atol=3e-2, rtol=3e-2) if mode == 'bf16' else {}
    torch.testing.assert_close(out.float(), expected, **tol)
    unmasked = attn(x, TokenLayout(1, HW))
    assert not torch.allclose(unmasked, expected, atol=1e-3)


def test_mask_combines_with_the_decomposed_rel_pos_bias():
    torch.manual_seed(0)
    attn = Attention(DIM, HEADS, rel_pos_bias='decomposed', rel_pos_size=HW)
    with torch.no_grad():
        attn.rel_pos_h.normal_()
        attn.rel_pos_w.normal_()
    x = torch.randn(2, 1 + HW[0] * HW[1], DIM)
    mask = random_mask(2, x.shape[1])
    bias_only = attn._global_bias(
        attn._qkv(x)[0], HW
    )  # what the unmasked path adds, (B, heads, N, N)
    out = attn(x, TokenLayout(1, HW, attn_mask=mask))
    torch.testing.assert_close(out, explicit_attention(attn, x, mask, bias_only))


def test_windowed_and_talking_heads_attention_refuse_a_mask():
    x = torch.randn(1, HW[0] * HW[1], DIM)
    mask = torch.ones(1, x.shape[1], x.shape[1], dtype=torch.bool)
    with pytest.raises(ValueError, match='windowed attention takes no attn_mask'):
        Attention(DIM, HEADS, window_size=2)(x, TokenLayout(0, HW, attn_mask=mask))
    with pytest.raises(ValueError, match='no attn_mask'):
        TalkingHeadAttention(DIM, HEADS)(x, TokenLayout(0, HW, attn_mask=mask))
