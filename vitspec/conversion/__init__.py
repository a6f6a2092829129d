"""Converting released files into checkpoints of our models, checked against the model before
writing: backbones (SpecViT), EoMT segmentors, released heads with their backbone.

Each module is imported on its own; importing this package imports none of them."""
