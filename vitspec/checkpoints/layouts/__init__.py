"""Key layouts of checkpoints written by other code, mapped to our parameter names: one module
per source, each renaming keys through ``rename.rename_keys`` (the one renaming rule: the first
matching rule wins, a key no rule knows is an error).

Backbones into SpecViT's (timm's) names: ``timm``, ``dinov2``, ``dinov3``, ``mae``, ``deit``
(DeiT-III, CaiT), chosen by ``backbone_formats``. Released heads into ours: ``mmseg0_heads``
(DINOv2's probes), ``dinov2_m2f`` and ``dinov3_m2f`` (Mask2Former segmentors with their
adapters), chosen by ``head_formats``; ``dinov3_detr`` (DINOv3's Plain-DETR detector).

Each module is imported on its own; importing this package imports none of them.
"""
