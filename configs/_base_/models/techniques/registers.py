# Four register tokens (Vision Transformers Need Registers), discarded at the output.
technique = dict(num_register_tokens=4)
