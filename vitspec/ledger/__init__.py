"""The reproduction ledger: its files and schema, its rows checked against their configs, the
released heads, the metrics it publishes, finished runs compared with it, and the model table.

Each module is imported on its own; importing this package imports none of them."""
