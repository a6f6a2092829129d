"""The error of inputs that mmcv's op kernels cannot compute on (vitspec's error base is not
importable here: this package is installed as mmcv._ext too)."""


class KernelInputError(ValueError):
    """Inputs an mmcv op cannot compute on, which mmcv's compiled kernels would read out of bounds
    or fail on without a word: the message names the argument, what was found and the fix."""
