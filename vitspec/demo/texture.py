"""The periodic surface patterns that make the classes tell apart."""

import math

import numpy as np


def texture(pattern, u, v):
    """A periodic pattern in [-1, 1]; u, v are surface coordinates in periods."""
    tau = 2 * math.pi
    if pattern == 'stripes_h':
        return np.sin(tau * v)
    if pattern == 'stripes_v':
        return np.sin(tau * u)
    if pattern == 'diagonal':
        return np.sin(tau * (u + v) / math.sqrt(2))
    if pattern == 'checker':
        return np.tanh(4 * np.sin(tau * u) * np.sin(tau * v))
    if pattern == 'dots':
        return np.where(np.cos(tau * u) * np.cos(tau * v) > 0.4, 1.0, -0.4)
    if pattern == 'blotches':
        return np.sin(tau * u + 1.9 * np.sin(tau * 0.73 * v)) * np.cos(
            tau * v + 1.3 * np.sin(tau * 0.61 * u)
        )
    raise ValueError(f'unknown pattern {pattern!r}')
