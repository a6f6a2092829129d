"""Where a block's tokens sit: the one value every part of a block reads the layout from."""

from typing import NamedTuple, Optional, Tuple, Union

import torch

# the row groups of a token sequence that may have parameters of their own (the specialized
# layers' ``<group>_weight`` / ``_bias`` / ``_gamma``): the CLS group and EoMT's queries
ROW_GROUPS = ('cls', 'query')


class TokenLayout(NamedTuple):
    """Tokens are laid out ``[CLS group | other prefix tokens | queries | patches]``.

    Row groups (`ROW_GROUPS`, `group_rows`): ``'cls'`` is the first ``num_cls`` tokens (the CLS
    token, and the registers where a config asks, SpecViT's ``specialize.registers='cls'``),
    ``'query'`` the ``num_queries`` query tokens; a specialized layer gives each group it has
    parameters for its own, and the other tokens the shared ones (0 rows: all share them).
    ``hw``: the (h, w) patch grid the last ``h * w`` tokens form;
    windowed attention, relative position bias and queries need it, the other parts ignore it.
    ``rope``: the (sin, cos) rotary tables of all tokens (see `rope`; prefix rows, queries
    included, are the identity), computed once per forward by the backbone; None: no rotary
    embedding. ``num_queries``: the EoMT query tokens right before the patches.
    ``attn_mask``: bool, (B, N, N) or broadcastable to (B, heads, N, N), True where a token may
    attend (as SDPA's); global attention only.
    """

    num_cls: int = 0
    hw: Optional[Tuple[int, int]] = None
    rope: Optional[Tuple[torch.Tensor, torch.Tensor]] = None
    num_queries: int = 0
    attn_mask: Optional[torch.Tensor] = None

    def group_rows(self, group: str, num_tokens: int) -> Tuple[int, int]:
        """(start, stop) of the row group ``group`` (one of `ROW_GROUPS`) in a sequence of
        ``num_tokens``; start == stop where the layout has none of its rows."""
        if group == 'cls':
            return 0, self.num_cls
        if group == 'query':
            if not self.num_queries:
                return 0, 0
            rows = self.query_slice(num_tokens)
            return rows.start, rows.stop
        raise ValueError(f'unknown row group {group!r}: one of {", ".join(ROW_GROUPS)}')

    def query_slice(self, num_tokens: int) -> slice:
        """The positions of the query tokens in a sequence of ``num_tokens``."""
        if self.hw is None:
            raise ValueError('a layout with queries needs the patch grid: TokenLayout(hw=(h, w))')
        end = num_tokens - self.hw[0] * self.hw[1]
        return slice(end - self.num_queries, end)

    def with_queries(self, num_queries: int) -> 'TokenLayout':
        """This layout after ``num_queries`` query tokens join right before the patches: the
        rope tables, if any, get identity rows for them (queries are not rotated)."""
        rope = self.rope
        if rope is not None:
            end = rope[0].shape[0] - self.hw[0] * self.hw[1]
            rope = tuple(
                torch.cat([t[:end], t.new_full((num_queries, t.shape[1]), fill), t[end:]])
                for t, fill in zip(rope, (0.0, 1.0))
            )
        return self._replace(rope=rope, num_queries=num_queries)


def as_layout(layout: Union[TokenLayout, int]) -> TokenLayout:
    """``layout``, where an int ``n`` is short for ``TokenLayout(num_cls=n)`` (the first ``n``
    tokens are the CLS group), the form the specialized layers also take."""
    return TokenLayout(num_cls=layout) if isinstance(layout, int) else layout
