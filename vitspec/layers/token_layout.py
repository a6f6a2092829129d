"""Where a block's tokens sit: the one value every part of a block reads the layout from."""

from typing import NamedTuple, Optional, Tuple

import torch


class TokenLayout(NamedTuple):
    """Tokens are laid out ``[CLS group | other prefix tokens | patches]``.

    ``num_cls``: the first ``num_cls`` tokens take the CLS copies of specialized layers (0: all
    tokens share the parameters). ``hw``: the (h, w) patch grid the last ``h * w`` tokens form;
    windowed attention and relative position bias need it, the other parts ignore it.
    ``rope``: the (sin, cos) rotary tables of all tokens (see `rope`; prefix rows are the
    identity), computed once per forward by the backbone; None: no rotary embedding.
    """

    num_cls: int = 0
    hw: Optional[Tuple[int, int]] = None
    rope: Optional[Tuple[torch.Tensor, torch.Tensor]] = None
