"""PCA maps of a backbone's patch features and the cosine similarity of its CLS token to each
patch, per block (tools/visualize_features.py draws them)."""

import sys

import numpy as np
import torch
from PIL import Image, ImageDraw

from vitspec.errors import BadImage, DataFileError
from vitspec.fileio.images import read_rgb

MEAN = np.array([0.485, 0.456, 0.406])
STD = np.array([0.229, 0.224, 0.225])
HEADER_PX = 14


def load_image(path: str, size: int) -> np.ndarray:
    """RGB uint8 (size, size): shorter side resized to ``size``, then centre-cropped. The image
    is read as tools/infer.py reads it (vitspec/fileio/images.py; BadImage says why not)."""
    with Image.fromarray(read_rgb(path)) as img:
        scale = size / min(img.size)
        w, h = max(size, round(img.width * scale)), max(size, round(img.height * scale))
        img = img.resize((w, h), Image.BICUBIC)
        left, top = (w - size) // 2, (h - size) // 2
        return np.asarray(img.crop((left, top, left + size, top + size)))


def load_images(paths, size: int) -> tuple:
    """(the paths that read, their ``load_image`` arrays); each image that does not read is
    skipped and named with its reason on stderr. DataFileError when none reads."""
    kept, images = [], []
    for path in paths:
        try:
            images.append(load_image(path, size))
        except BadImage as exc:
            print(f'skipped {path}: {exc}', file=sys.stderr)
            continue
        kept.append(path)
    if not images:
        raise DataFileError(f'none of the {len(paths)} image(s) could be read (each named above)')
    return kept, images


def to_input(rgb: np.ndarray, patch: int) -> torch.Tensor:
    """Normalized (1, 3, S, S) tensor, S the largest multiple of ``patch`` not above the size."""
    side = rgb.shape[0] // patch * patch
    x = (rgb[:side, :side] / 255.0 - MEAN) / STD
    return torch.from_numpy(x).permute(2, 0, 1)[None].float()


@torch.no_grad()
def patch_features(model, x: torch.Tensor) -> torch.Tensor:
    """(h, w, C) patch features of the model's (single) output index."""
    return model(x)[0][0].permute(1, 2, 0)


@torch.no_grad()
def cls_patch_cosine(model, x: torch.Tensor) -> list:
    """Per block: mean over patches of cos(CLS, patch) in the output of norm1."""
    if model.num_cls == 0:
        return []  # CaiT: no CLS token in the self-attention blocks
    outputs = []
    hooks = [
        blk.norm1.register_forward_hook(lambda m, i, o: outputs.append(o)) for blk in model.blocks
    ]
    try:
        model(x)
    finally:
        for hook in hooks:
            hook.remove()
    start = model.num_prefix_tokens
    return [torch.cosine_similarity(o[:, :1], o[:, start:], dim=-1).mean().item() for o in outputs]


def pca_rgb(features: list) -> list:
    """First three principal components of all images' patches, each scaled to [0, 1] over
    the 1st-99th percentile; signs fixed (largest loading positive) so results are stable."""
    flat = torch.cat([f.reshape(-1, f.shape[-1]) for f in features]).double()
    centered = flat - flat.mean(0)
    _, vecs = torch.linalg.eigh(centered.T @ centered)
    comps = vecs[:, -3:].flip(1)  # eigh sorts ascending
    idx = comps.abs().argmax(0)
    comps = comps * torch.sign(comps[idx, torch.arange(3)])
    proj = (centered @ comps).numpy()
    lo, hi = np.percentile(proj, 1, axis=0), np.percentile(proj, 99, axis=0)
    proj = np.clip((proj - lo) / np.maximum(hi - lo, 1e-12), 0, 1)
    out, start = [], 0
    for f in features:
        n = f.shape[0] * f.shape[1]
        out.append(proj[start : start + n].reshape(f.shape[0], f.shape[1], 3))
        start += n
    return out


def upsample(rgb01: np.ndarray, size: int) -> np.ndarray:
    img = Image.fromarray((rgb01 * 255).round().astype(np.uint8))
    return np.asarray(img.resize((size, size), Image.NEAREST))


def compose_grid(images: list, maps: list, labels: list, cell: int) -> Image.Image:
    """Rows: images; columns: the image, then one PCA map per model. A label strip on top."""
    cols = 1 + len(maps)
    grid = Image.new('RGB', (cols * cell, HEADER_PX + len(images) * cell), 'white')
    draw = ImageDraw.Draw(grid)
    for c, label in enumerate(['image', *labels]):
        draw.text((c * cell + 2, 1), label[: cell // 6], fill='black')
    for r, img in enumerate(images):
        row = [np.asarray(Image.fromarray(img).resize((cell, cell), Image.BICUBIC))]
        row += [upsample(model_maps[r], cell) for model_maps in maps]
        for c, tile in enumerate(row):
            grid.paste(Image.fromarray(tile), (c * cell, HEADER_PX + r * cell))
    return grid


def plot_cosine(curves: dict, path: str):
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
    for label, values in curves.items():
        ax.plot(range(1, len(values) + 1), values, marker='o', label=label)
    ax.set_xlabel('block')
    ax.set_ylabel('mean cos(CLS, patch) after norm1')
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.savefig(path, metadata={'Software': None})
    plt.close(fig)
