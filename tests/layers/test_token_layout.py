import pytest
import torch

from vitspec.layers import TokenLayout
from vitspec.layers.rope import RopePositionEmbedding
from vitspec.layers.token_layout import as_layout


def test_with_queries_gives_the_rope_tables_of_the_longer_prefix():
    rope = RopePositionEmbedding(8).eval()
    layout = TokenLayout(1, (2, 3), rope((2, 3), num_prefix=3))
    queried = layout.with_queries(4)
    assert queried.num_queries == 4 and queried.hw == (2, 3) and queried.num_cls == 1
    for got, want in zip(queried.rope, rope((2, 3), num_prefix=7)):
        torch.testing.assert_close(got, want, rtol=0, atol=0)
    assert queried.query_slice(3 + 4 + 6) == slice(3, 7)
    assert TokenLayout(hw=(2, 3)).with_queries(2).rope is None


def test_row_groups_name_the_cls_and_query_rows():
    layout = TokenLayout(3, (2, 3), num_queries=4)  # CLS and 2 registers, 4 queries, 6 patches
    assert layout.group_rows('cls', 13) == (0, 3)
    assert layout.group_rows('query', 13) == (3, 7)
    assert TokenLayout(1).group_rows('query', 5) == (0, 0)  # none: no patch grid needed
    with pytest.raises(ValueError, match='unknown row group'):
        layout.group_rows('registers', 13)
    assert as_layout(2) == TokenLayout(num_cls=2) and as_layout(layout) is layout
