"""Skip connections as an option (the ablation of "Always Skip Attention", 2505.01996): a stage
without its skip outputs its branch alone; the default block is the same computation as before,
split into its two stages."""

import pytest
import torch
from torch import nn

from vitspec.layers import Attention, Block, LayerScale, Mlp
from vitspec.layers.token_layout import TokenLayout


def block(**kwargs):
    torch.manual_seed(0)
    return Block(
        16,
        attn_layer=lambda d: Attention(d, num_heads=2),
        mlp_layer=lambda d: Mlp(d, 32),
        ls_layer=lambda d: LayerScale(d, 0.5),
        **kwargs,
    ).eval()


def branches(blk, x, layout):
    """The two branches of a pre-norm block, written out: attention and MLP on their norms."""
    attn = lambda t: blk.ls1(blk.attn(blk.norm1(t, 0), layout), 0)  # noqa: E731
    mlp = lambda t: blk.ls2(blk.mlp(blk.norm2(t, 0), layout), 0)  # noqa: E731
    return attn, mlp


@pytest.mark.parametrize(
    'skip_attn,skip_mlp', [(True, True), (False, True), (True, False), (False, False)]
)
def test_a_stage_without_its_skip_outputs_its_branch(skip_attn, skip_mlp):
    blk = block(skip_attn=skip_attn, skip_mlp=skip_mlp)
    x, layout = torch.randn(2, 5, 16), TokenLayout()
    attn, mlp = branches(blk, x, layout)
    h = x + attn(x) if skip_attn else attn(x)
    expected = h + mlp(h) if skip_mlp else mlp(h)
    assert torch.equal(blk(x, layout), expected)
    assert torch.equal(blk.attention_stage(x, layout), h)


def test_the_default_block_keeps_both_skips_and_its_parameters():
    plain, without = block(), block(skip_attn=False)
    assert plain.skip_attn and plain.skip_mlp and 'skip' not in repr(plain)
    assert 'skip connection removed: attn' in repr(without)
    assert plain.state_dict().keys() == without.state_dict().keys()
    x = torch.randn(2, 5, 16)
    assert not torch.allclose(plain(x), without(x))


def test_drop_path_without_a_skip_is_refused_with_the_reason():
    with pytest.raises(ValueError, match='stochastic depth drops a residual branch'):
        block(skip_mlp=False, drop_path=0.1)
    assert isinstance(block(drop_path=0.1).drop_path1, nn.Module)
