"""A run of a config: the Runner built from it, its work dir (lock, logs, earlier checkpoints,
final metrics), evaluation of a checkpoint, visualizer backends, ``torch.compile``, and the
check that two configs differ only in a technique.

Each module is imported on its own; importing this package imports none of them."""
