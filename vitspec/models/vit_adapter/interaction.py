"""One ViT-Adapter interaction: an injector before a group of ViT blocks, an extractor (and,
in the last one, two more) after it. The adapter runs the blocks between the two calls."""

from torch import nn

from .extractor import AdapterExtractor
from .injector import AdapterInjector


class AdapterInteraction(nn.Module):
    """``with_injector=False`` is DINOv3's form (facebookresearch/dinov3
    ``dinov3_adapter.py``, ``InteractionBlockWithCls``): extractors only, so the ViT's tokens
    are never changed. Parameter names follow czczup/ViT-Adapter's ``InteractionBlock``."""

    def __init__(
        self,
        dim: int,
        num_heads: int = 6,
        num_points: int = 4,
        with_injector: bool = True,
        init_values: float = 0.0,
        deform_ratio: float = 1.0,
        with_cffn: bool = True,
        cffn_ratio: float = 0.25,
        drop_path: float = 0.0,
        extra_extractor: bool = False,
        norm_eps: float = 1e-6,
    ):
        super().__init__()
        self.injector = (
            AdapterInjector(dim, num_heads, num_points, 3, deform_ratio, init_values, norm_eps)
            if with_injector
            else None
        )

        def extractor():
            return AdapterExtractor(
                dim, num_heads, num_points, deform_ratio, with_cffn, cffn_ratio, drop_path, norm_eps
            )

        self.extractor = extractor()
        self.extra_extractors = nn.Sequential(extractor(), extractor()) if extra_extractor else None

    def extract(self, prior, vit_tokens, inputs, level_shapes):
        extractors = [self.extractor, *(self.extra_extractors or ())]
        for extractor in extractors:
            prior = extractor(prior, vit_tokens, inputs, level_shapes)
        return prior
