"""A cap on optimizer steps skipped in a row: a run whose every step is skipped trains nothing.

Steps are skipped by the grad scaler (float16 gradients that overflow, normal while the loss
scale settles) and by ``nonfinite='skip'``. A few in a row are expected; a long run of them, or
a run that ends without a single step, means the weights stopped changing while the run goes on
to exit 0.
"""

from typing import Optional

from mmengine.logging import MessageHub

from vitspec.errors import ConfigError

DEFAULT_MAX_SKIPPED_STEPS = 20


class SkippedSteps:
    """Counts consecutive skipped steps. ``skip`` raises FloatingPointError at ``cap`` of them
    (None: no cap), and at the run's last iteration when no step was taken at all (unless
    there is no cap), naming the iterations, the last reason and the option that sets the cap."""

    def __init__(self, cap: Optional[int] = DEFAULT_MAX_SKIPPED_STEPS):
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
            raise ConfigError(f'max_skipped_steps must be a positive int or None, got {cap!r}')
        self.cap = cap
        self.in_a_row = 0
        self.first_iteration = None
        self.ever_stepped = False

    def stepped(self) -> None:
        self.in_a_row = 0
        self.first_iteration = None
        self.ever_stepped = True

    def skip(self, reason: str, hint: str = '', last_iteration: int = -1) -> None:
        """Count a skipped step; ``last_iteration``: the run's last (-1: unknown)."""
        iteration = current_iteration()
        if self.in_a_row == 0:
            self.first_iteration = iteration
        self.in_a_row += 1
        if self.cap is None:
            return
        if self.in_a_row >= self.cap:
            what = f'{self.in_a_row} optimizer steps in a row were skipped'
        elif iteration == last_iteration and not self.ever_stepped:
            what = f'all {self.in_a_row} optimizer steps of this run were skipped'
        else:
            return
        first = self.first_iteration
        since = f'iteration {first - 1}' if first > 1 else 'the start'
        raise FloatingPointError(
            f'{what} (iterations {first}-{iteration}), the last for {reason}; the weights have '
            f'not changed since {since}. {hint}The cap on skipped steps in a row is '
            f'optim_wrapper.max_skipped_steps ({self.cap}; None: no cap).'
        )


def current_iteration() -> int:
    """The 1-based training iteration being run (mmengine's message hub holds the 0-based)."""
    return MessageHub.get_current_instance().get_info('iter', 0) + 1
