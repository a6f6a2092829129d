"""Command-line flags that act only together with another one: given without it they are
refused, never silently ignored (``--window`` without ``--slide``, ``--mmcv-kernels`` without
``--config``). A tool lists its pairs and calls ``refuse_flags_without_their_needs`` once after
parsing."""

import argparse
from typing import Dict


def refuse_flags_without_their_needs(
    parser: argparse.ArgumentParser, args: argparse.Namespace, needs: Dict[str, str]
) -> None:
    """``parser.error`` for the first flag of ``needs`` (flag -> the flag it acts with) that was
    given while the flag it needs was not."""

    def given(flag):
        return getattr(args, flag.lstrip('-').replace('-', '_')) not in (None, False, [])

    for flag, needed in needs.items():
        if given(flag) and not given(needed):
            parser.error(f'{flag} acts only with {needed}: add {needed}, or drop {flag}')
