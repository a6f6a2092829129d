"""vitspec: dense prediction with Vision Transformer backbone techniques."""
