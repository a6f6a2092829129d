"""Looking inside a backbone: where it comes from (config or checkpoint), its parameters and
FLOPs, its feature maps, the conditioning of its token matrices.

Each module is imported on its own; importing this package imports none of them."""
