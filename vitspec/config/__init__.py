"""Config handling: where the configs are, reading a config and its ``_base_`` chain, the config
tree (plain values, dotted paths, flattening, differences), ``--cfg-options`` and config
variables, typo checks of config keys, saved-config checks and config digests.

Each module is imported on its own; importing this package imports none of them."""
