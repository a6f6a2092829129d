"""timm's VisionTransformer (ViT, DeiT, DeiT-III, DINOv2, AugReg, ...): SpecViT's own names."""


def from_timm(sd: dict) -> dict:
    """timm's names are SpecViT's: the tensors as they are."""
    return dict(sd)
