"""What the command-line tools in tools/ are made of: building a Runner from a config, reading
run logs, the reproduction ledger, the model table, backbones for the analysis tools.

Each module is imported on its own (``from vitspec.apis.runner import build_runner``); importing
this package imports none of them.
"""
