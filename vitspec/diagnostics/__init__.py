"""Checks of the machine a run is on: the GPU check and mmcv's compiled ops against CPU.

Each module is imported on its own; importing this package imports none of them."""
