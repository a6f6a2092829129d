import torch
from timm.models.cait import LayerScaleBlock, TalkingHeadAttn

from vitspec.layers.talking_heads import TalkingHeadAttention

DIM, HEADS = 64, 4


def perturbed_reference():
    torch.manual_seed(0)
    ref = TalkingHeadAttn(DIM, HEADS, qkv_bias=True).eval()
    with torch.no_grad():  # non-trivial values everywhere, incl. the head-mixing matrices
        for p in ref.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    return ref


def test_matches_timm():
    ref = perturbed_reference()
    ours = TalkingHeadAttention(DIM, HEADS).eval()
    ours.load_state_dict(ref.state_dict())  # strict: qkv, proj_l, proj_w, proj
    x = torch.randn(2, 16, DIM)
    with torch.no_grad():
        out = ours(x)
        assert out.shape == x.shape
        torch.testing.assert_close(out, ref(x), atol=1e-5, rtol=1e-5)


def test_in_a_layer_scale_block_matches_timm():
    """Our attention dropped into timm's CaiT SA block gives timm's block output."""
    torch.manual_seed(1)
    ref = LayerScaleBlock(DIM, HEADS, qkv_bias=True, init_values=0.1).eval()
    ref.attn.load_state_dict(perturbed_reference().state_dict())
    block = LayerScaleBlock(
        DIM,
        HEADS,
        qkv_bias=True,
        init_values=0.1,
        attn_block=lambda dim, num_heads, qkv_bias, **_: TalkingHeadAttention(
            dim, num_heads, qkv_bias
        ),
    ).eval()
    block.load_state_dict(ref.state_dict())
    x = torch.randn(2, 16, DIM)
    with torch.no_grad():
        torch.testing.assert_close(block(x), ref(x), atol=1e-5, rtol=1e-5)


def test_identity_head_mixing_is_plain_attention():
    """proj_l = proj_w = identity reduces talking heads to standard softmax attention."""
    torch.manual_seed(0)
    ours = TalkingHeadAttention(DIM, HEADS).eval()
    with torch.no_grad():
        for lin in (ours.proj_l, ours.proj_w):
            lin.weight.copy_(torch.eye(HEADS))
            lin.bias.zero_()
    x = torch.randn(2, 16, DIM)
    q, k, v = ours.qkv(x).reshape(2, 16, 3, HEADS, DIM // HEADS).permute(2, 0, 3, 1, 4)
    plain = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    expected = ours.proj(plain.transpose(1, 2).reshape(2, 16, DIM))
    with torch.no_grad():
        torch.testing.assert_close(ours(x), expected, atol=1e-5, rtol=1e-5)


def test_heads_talk():
    """With head mixing, changing the queries of head 0 changes the output of every head."""
    torch.manual_seed(0)
    ours = TalkingHeadAttention(DIM, HEADS).eval()
    hd = DIM // HEADS
    x = torch.randn(1, 16, DIM)
    with torch.no_grad():
        ours.proj.weight.copy_(torch.eye(DIM))  # output = the merged per-head outputs
        ours.proj.bias.zero_()
        base = ours(x).reshape(16, HEADS, hd)
        ours.qkv.weight[:hd] += 1.0
        changed = ours(x).reshape(16, HEADS, hd)
    assert ((changed - base)[:, 1:].abs().amax(dim=(0, 2)) > 1e-3).all()
