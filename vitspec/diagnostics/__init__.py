"""Checks of the machine a run is on: the GPU check (its comparison of mmcv's ops on the device
with CPU is vitspec.mmcv_ops.device_parity) and why a training command failed.

Each module is imported on its own; importing this package imports none of them."""
