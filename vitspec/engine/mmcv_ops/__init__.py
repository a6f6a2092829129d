"""mmcv's ops in a run: which kernels they run on (``kernels``; the check that a run's device
has them is hooks/mmcv_ops_check.py), and the compiled ones run in float32 under autocast
(``autocast``)."""
