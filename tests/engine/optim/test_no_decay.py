from functools import partial

from vitspec.engine.optim.no_decay import no_decay_parameters
from vitspec.layers import Attention, Block, LayerScale, Mlp, SpecializedLinear
from vitspec.models.eomt.query_block import query_block_parts


def test_row_group_copies_decay_as_their_shared_parameters():
    """A row group's biases, norm affine and LayerScale get no decay, as the shared ones; its
    linear weight decays (EoMT's query rows beside the CLS copies)."""
    block = Block(
        8,
        partial(Attention, num_heads=2, qkv_layer=SpecializedLinear),
        partial(Mlp, hidden=8),
        ls_layer=LayerScale,
    )
    query_block_parts(block)
    exempt = no_decay_parameters(block)
    decayed = sorted(n for n, p in block.named_parameters() if id(p) not in exempt)
    assert decayed == [
        'attn.proj.weight',
        'attn.qkv.cls_weight',
        'attn.qkv.query_weight',
        'attn.qkv.weight',
        'mlp.fc1.weight',
        'mlp.fc2.weight',
    ]
