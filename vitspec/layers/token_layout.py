"""Where a block's tokens sit: the one value every part of a block reads the layout from."""

from typing import NamedTuple, Optional, Tuple


class TokenLayout(NamedTuple):
    """Tokens are laid out ``[CLS group | other prefix tokens | patches]``.

    ``num_cls``: the first ``num_cls`` tokens take the CLS copies of specialized layers (0: all
    tokens share the parameters). ``hw``: the (h, w) patch grid the last ``h * w`` tokens form;
    windowed attention and relative position bias need it, the other parts ignore it.
    """

    num_cls: int = 0
    hw: Optional[Tuple[int, int]] = None
