"""Attention heads of the published ViT widths, per checkpoint family.

A state dict shows the width of a ViT but not how its attention splits that width into heads
(the qkv projection is one matrix either way), and no single head width holds across families:
ViT-H/14 (Dosovitskiy et al.; MAE, DeiT-III, timm ``vit_huge_patch14_224``) has 16 heads of 80
channels in 1280, DINOv3's ViT-H+ 20 heads of 64 in the same 1280, CaiT 48-channel heads. So each
converter format has the table of the models published in its layout; a width that is not there
is refused rather than guessed (``--num-heads`` gives it). The counts are those of the model
definitions in timm (vision_transformer.py, deit.py, cait.py, eva.py) and the upstream
repositories (google-research/vision_transformer, facebookresearch/{deit,mae,dinov2,dinov3}).
"""

from vitspec.errors import CheckpointError, ConfigError

# Dosovitskiy et al. 2021 and Touvron et al. (DeiT, DeiT-III): Ti, S, B, L, H; Zhai et al. 2022
# ViT-g/14 (1408) and ViT-G/14 (1664), also EVA's and OpenCLIP's; DINOv2's ViT-g/14 (1536).
VIT_HEADS = {192: 3, 384: 6, 768: 12, 1024: 16, 1280: 16, 1408: 16, 1536: 24, 1664: 16}

# CaiT (Touvron et al. 2021): 48-channel heads, XXS 192, XS 288, S 384, M 768. The talking-heads
# weights show the count, so this table only backs that reading up.
CAIT_HEADS = {192: 4, 288: 6, 384: 8, 768: 16}

# DINOv3 (Simeoni et al. 2025): S and S+ 384, B 768, L and L+ 1024, H+ 1280, 7B 4096, all with
# 64-channel heads. Its own checkpoints show the head width in ``rope_embed.periods`` (head_dim /
# 4 of them); this table serves timm's port, which does not store them. Its H+ is not a ViT-H:
# the same width, 20 heads instead of 16.
DINOV3_HEADS = {384: 6, 768: 12, 1024: 16, 1280: 20, 4096: 32}

FAMILY_HEADS = dict(vit=VIT_HEADS, cait=CAIT_HEADS, dinov3=DINOV3_HEADS)

# The families whose checkpoints each converter format reads.
FORMAT_FAMILIES = dict(
    timm=('vit',),
    dinov2=('vit',),
    deit3=('vit',),
    mae=('vit',),
    cait=('cait',),
    dinov3=('dinov3',),
)


def heads_from_table(embed_dims: int, fmt: str) -> int:
    """The head count of a ``fmt`` checkpoint of width ``embed_dims``; CheckpointError for a
    width no model of that format has, or one its families disagree on."""
    if fmt not in FORMAT_FAMILIES:
        known = ', '.join(FORMAT_FAMILIES)
        raise ConfigError(f'unknown checkpoint format {fmt!r}; choose from {known}')
    return heads_for_families(embed_dims, FORMAT_FAMILIES[fmt], what=f'{fmt}-format')


def heads_for_families(embed_dims: int, families, what: str = '') -> int:
    counts = {
        family: FAMILY_HEADS[family][embed_dims]
        for family in families
        if embed_dims in FAMILY_HEADS[family]
    }
    label = f'{what} ViT' if what else 'ViT'
    if not counts:
        known = sorted({w for family in families for w in FAMILY_HEADS[family]})
        raise CheckpointError(
            f'embed_dims {embed_dims} is not the width of any published {label} '
            f'({", ".join(map(str, known))}), and the weights do not show the number of '
            f'attention heads: pass it with --num-heads (num_heads=)'
        )
    if len(set(counts.values())) > 1:
        found = ', '.join(f'{n} in {family}' for family, n in counts.items())
        raise CheckpointError(
            f'embed_dims {embed_dims} has different head counts ({found}) and the weights do not '
            f'tell them apart: pass the right one with --num-heads (num_heads=)'
        )
    return next(iter(counts.values()))
