"""Training and test runs: building a Runner from a config, its work dir (lock, logs, final
metrics), evaluation settings, visualizer backends, ``torch.compile``, technique comparisons.

Each module is imported on its own; importing this package imports none of them."""
