"""The errors vitspec raises. Plain Python, imported by every other module and by none."""


class CheckpointError(RuntimeError):
    """A checkpoint file that cannot be loaded safely or does not fit."""


class DataFileError(ValueError):
    """A dataset file that is missing, cannot be decoded or holds invalid values."""


class BackboneNotFrozenError(RuntimeError):
    """A linear-probe run whose backbone has trainable parameters."""


class UnusedParameterError(RuntimeError):
    """A trainable parameter that receives no gradient."""


class InertProbeError(ValueError):
    """A frozen probe of a technique whose parameters all come from a plain checkpoint."""


class WorkDirInUseError(RuntimeError):
    """A training run started in a work dir that another live run owns."""


class MmcvOpsError(RuntimeError):
    """A run on a device for which mmcv's compiled ops have no kernels."""


class ConfigKeyError(ValueError):
    """A config key that the run would ignore (a typo of a field) or fail on only later."""


class MetricNotComputableError(ValueError):
    """An evaluation whose metric has no value (nothing to score, e.g. all labels ignored)."""
