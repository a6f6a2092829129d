"""The errors vitspec raises, and the 'did you mean' hint of its messages.

Plain Python, imported by every other module and importing none. Every error class of vitspec
is defined here and derives from VitspecError; each keeps the Python base its callers catch it
as (``except ValueError`` still catches a ConfigError). vitspec/mmcv_ops/kernels is the one
exception: it is installed as mmcv._ext too, where vitspec is not importable, and keeps its own
error.
"""

import difflib

__all__ = [
    'VitspecError',
    'ConfigError',
    'ConfigKeyError',
    'SavedConfigMismatch',
    'InputShapeError',
    'CheckpointError',
    'DataFileError',
    'BadImage',
    'LedgerError',
    'MetricNotComputableError',
    'NoFinalMetrics',
    'BackboneNotFrozenError',
    'UnusedParameterError',
    'InertProbeError',
    'OutputPathError',
    'WorkDirInUseError',
    'MmcvOpsError',
    'closest_names',
    'did_you_mean',
]


class VitspecError(Exception):
    """Any error of vitspec's own: ``except VitspecError`` catches them all."""


# A config or command-line option vitspec cannot run with


class ConfigError(VitspecError, ValueError):
    """A config value or command-line option vitspec cannot run with, or options that do not
    go together (the message names the key and what it may be)."""


class ConfigKeyError(ConfigError):
    """A config key that the run would ignore (a typo of a field) or fail on only later."""


class SavedConfigMismatch(ConfigError):
    """A test config that builds another model than the checkpoint was trained as."""


class InputShapeError(VitspecError, ValueError):
    """Tensors reaching a model part in a shape or number it cannot take: an image size that is
    not a multiple of the patch size, the backbone outputs a head gets, a prediction and its
    target; mostly parts of a config that disagree."""


# Files: checkpoints, datasets, the ledger


class CheckpointError(VitspecError, RuntimeError):
    """A checkpoint file that cannot be loaded safely or does not fit."""


class DataFileError(VitspecError, ValueError):
    """A dataset file that is missing, cannot be decoded or holds invalid values."""


class OutputPathError(VitspecError, ValueError):
    """An output path a tool refuses before its work: an existing file or non-empty folder
    without --overwrite, an input, a missing suffix, a parent that is a file."""


class BadImage(DataFileError):
    """An input image that cannot be predicted on; the run skips it and names it."""


class LedgerError(VitspecError, ValueError):
    """A reproduction-ledger file that does not hold; each line names the file and the key
    path."""


# Evaluation


class MetricNotComputableError(VitspecError, ValueError):
    """An evaluation whose metric has no value (nothing to score, e.g. all labels ignored)."""


class NoFinalMetrics(VitspecError):
    """A work dir without the metrics of a finished run; the message says what it has."""


# Training runs


class BackboneNotFrozenError(VitspecError, RuntimeError):
    """A linear-probe run whose backbone has trainable parameters."""


class UnusedParameterError(VitspecError, RuntimeError):
    """A trainable parameter that receives no gradient."""


class InertProbeError(VitspecError, ValueError):
    """A frozen probe of a technique whose parameters all come from a plain checkpoint."""


class WorkDirInUseError(VitspecError, RuntimeError):
    """A training run started in a work dir that another live run owns."""


class MmcvOpsError(VitspecError, RuntimeError):
    """A run on a device for which mmcv's compiled ops have no kernels."""


# 'did you mean'


def closest_names(name: str, candidates, n: int = 1, typos_only: bool = False) -> list:
    """Up to ``n`` of ``candidates`` that ``name`` was likely meant as, the closest first.

    By default a candidate similar enough to be worth naming in a message (difflib's ratio at
    least 0.5). With ``typos_only``, a candidate within typo distance only (1 edit for names
    under 9 characters, else 2; a swap of neighbours is one edit; case ignored): for checks that
    refuse a name because it is close to a known one, where a word of its own must pass."""
    candidates = [c for c in candidates if c != name]
    if not typos_only:
        return difflib.get_close_matches(name, candidates, n=n, cutoff=0.5)
    limit = 1 if len(name) < 9 else 2
    scored = sorted((edit_distance(name.lower(), c.lower()), c) for c in candidates)
    return [c for d, c in scored if d <= limit][:n]


def did_you_mean(name: str, candidates, n: int = 1, typos_only: bool = False) -> str:
    """ "did you mean 'x'?" (or "'x', 'y' or 'z'" for ``n`` > 1) naming the closest candidates of
    ``name`` (see closest_names); '' when none is close."""
    close = [repr(c) for c in closest_names(name, candidates, n, typos_only)]
    if not close:
        return ''
    names = close[0] if len(close) == 1 else f'{", ".join(close[:-1])} or {close[-1]}'
    return f'did you mean {names}?'


def edit_distance(a: str, b: str) -> int:
    """Optimal-string-alignment distance: insertions, deletions, substitutions, swaps."""
    previous2, previous = None, list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]
