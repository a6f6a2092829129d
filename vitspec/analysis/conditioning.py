"""Condition numbers of the token matrices inside a SpecViT, block by block
(tools/analyze_conditioning.py reports them).

"Always Skip Attention" (Ji et al., arXiv 2505.01996) defines the condition number of a matrix
as kappa(M) = sigma_max(M) / sigma_min(M) and plots, per layer of a ViT-Tiny, that of the output
embeddings of the self-attention block and of the FFN, with and without their skip connections
(its Figure 1); its Token Graying tables give log kappa of the input tokens. Here, for each
image and each block, M is the (tokens x channels) matrix of the whole token sequence (CLS,
registers and patches) at three places: the block's input, the output of its attention stage
(with its skip connection: X + attention branch; without: the branch alone) and the output of
its MLP stage (likewise). sigma_min is the smallest of the min(tokens, channels) singular
values, computed in float64; a rank-deficient matrix gives inf. The paper's exact token set
and reduction over images could not be read: not found; here the median over images of the
natural log of kappa is reported.
"""

import numpy as np
import torch

from vitspec.fileio.images import list_images
from vitspec.layers.patch_embed import center_pad_to_multiple

STAGES = ('input', 'attention', 'mlp')


def condition_number(tokens: torch.Tensor) -> torch.Tensor:
    """kappa = sigma_max / sigma_min of each (N, D) matrix of ``tokens`` (..., N, D), float64."""
    s = torch.linalg.svdvals(tokens.double())
    return s[..., 0] / s[..., -1]


@torch.no_grad()
def block_conditioning(backbone, images: torch.Tensor) -> dict:
    """{stage: (blocks, images) float64 tensor of kappa} for the self-attention blocks of a
    SpecViT on normalized ``images`` (B, 3, H, W), in the backbone's own precision."""
    x, layout = backbone.tokens(center_pad_to_multiple(images, backbone.patch_size))
    kappas = {stage: [] for stage in STAGES}
    for block in backbone.blocks:
        kappas['input'].append(condition_number(x))
        x = block.attention_stage(x, layout)
        kappas['attention'].append(condition_number(x))
        x = block.mlp_stage(x, layout)
        kappas['mlp'].append(condition_number(x))
    return {stage: torch.stack(values) for stage, values in kappas.items()}


def median_log_kappa(kappas: dict) -> dict:
    """{stage: [median over images of ln kappa, one per block]}."""
    return {stage: k.log().median(dim=1).values.tolist() for stage, k in kappas.items()}


def image_paths(inputs) -> list:
    """Image files from files, folders (their images, sorted) and glob patterns, as
    tools/infer.py finds them (vitspec/fileio/images.py): a file of a folder or pattern that is
    not an image is skipped and named; an input that names no image is a DataFileError."""
    return [str(path) for path in list_images(inputs)]


def format_table(curves: dict) -> str:
    """Markdown, a table per model: a row per block, a column per place, median ln kappa."""
    sections = []
    for label, values in curves.items():
        lines = [f'{label}', '', '| block | ' + ' | '.join(STAGES) + ' |']
        lines.append('|' + '---|' * (len(STAGES) + 1))
        for i in range(len(values['input'])):
            lines.append(f'| {i} | ' + ' | '.join(f'{values[s][i]:.2f}' for s in STAGES) + ' |')
        sections.append('\n'.join(lines))
    return '\n\n'.join(sections)


def plot_conditioning(curves: dict, path: str) -> None:
    """ln kappa against block, a panel per stage, a line per model."""
    import matplotlib

    matplotlib.use('Agg')
    import matplotlib.pyplot as plt

    rows = len(curves)
    fig, axes = plt.subplots(
        1, len(STAGES), figsize=(12, 3.4 + 0.22 * rows), dpi=100, sharey=True, squeeze=False
    )
    for ax, stage in zip(axes[0], STAGES):
        for label, values in curves.items():
            ax.plot(np.arange(len(values[stage])), values[stage], marker='o', label=label)
        ax.set_title('block input' if stage == 'input' else f'{stage} stage output')
        ax.set_xlabel('block')
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel('median ln condition number')
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc='lower center', fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.22 * rows / (3.4 + 0.22 * rows) + 0.02, 1, 1))
    fig.savefig(path, metadata={'Software': None})
    plt.close(fig)
