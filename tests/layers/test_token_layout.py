import torch

from vitspec.layers import TokenLayout
from vitspec.layers.rope import RopePositionEmbedding


def test_with_queries_gives_the_rope_tables_of_the_longer_prefix():
    rope = RopePositionEmbedding(8).eval()
    layout = TokenLayout(1, (2, 3), rope((2, 3), num_prefix=3))
    queried = layout.with_queries(4)
    assert queried.num_queries == 4 and queried.hw == (2, 3) and queried.num_cls == 1
    for got, want in zip(queried.rope, rope((2, 3), num_prefix=7)):
        torch.testing.assert_close(got, want, rtol=0, atol=0)
    assert queried.query_slice(3 + 4 + 6) == slice(3, 7)
    assert TokenLayout(hw=(2, 3)).with_queries(2).rope is None
