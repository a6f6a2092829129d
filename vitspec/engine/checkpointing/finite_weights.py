"""No checkpoint with non-finite weights: a NaN in a parameter or buffer (a BatchNorm's running
statistics are updated by a forward whose step was then skipped) would be resumed from, tested
and published as if it were a model."""

import torch

SHOWN = 5


def check_finite_weights(checkpoint: dict) -> None:
    """FloatingPointError naming the iteration and the non-finite entries of the checkpoint's
    ``state_dict``, before it is written."""
    state_dict = checkpoint.get('state_dict', {})
    bad = [
        key
        for key, value in state_dict.items()
        if torch.is_tensor(value)
        and (value.is_floating_point() or value.is_complex())
        and not bool(torch.isfinite(value).all())
    ]
    if not bad:
        return
    iteration = checkpoint.get('meta', {}).get('iter', '?')
    more = f' and {len(bad) - SHOWN} more' if len(bad) > SHOWN else ''
    raise FloatingPointError(
        f'the weights at iteration {iteration} hold NaN or inf in {len(bad)} of '
        f'{len(state_dict)} entries ({", ".join(bad[:SHOWN])}{more}): checkpoint not saved, '
        'run stopped; the checkpoints written before stay as they were'
    )
