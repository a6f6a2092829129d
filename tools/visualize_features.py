"""PCA maps of patch features, and CLS-vs-patch cosine similarity per block, for several backbones.

    python tools/visualize_features.py --models configs/a.py configs/b.py=work/iter_500.pth \\
        converted.pth --images img1.jpg img2.jpg --out pca.png [--cosine-out cosine.png]

One PNG grid: a row per image, the image then one column per model, each cell the first three
principal components of that model's patch features (block --layer, after the final norm),
fitted jointly over all images of that model, as RGB. The cosine plot shows, for each model,
the mean over patches (and images) of cos(CLS, patch) after each block's norm1 — what layer
specialization changes. A model source is a config, CONFIG=CHECKPOINT or a converted checkpoint
(see vitspec/analysis/backbone_source.py). Random weights are seeded (--seed): the output is
deterministic.
"""

import argparse

import numpy as np
import torch

from vitspec.analysis.backbone_source import load_backbone, model_files
from vitspec.analysis.feature_maps import (
    cls_patch_cosine,
    compose_grid,
    load_images,
    patch_features,
    pca_rgb,
    plot_cosine,
    to_input,
)
from vitspec.errors import VitspecError
from vitspec.fileio import add_output, claim_outputs


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        '--models',
        nargs='+',
        required=True,
        help='CONFIG, CONFIG=CHECKPOINT or CONVERTED_CHECKPOINT each',
    )
    parser.add_argument('--images', nargs='+', required=True)
    add_output(parser, '--out', suffixes=('.png',), required=True, help='PCA grid PNG')
    add_output(parser, '--cosine-out', suffixes=('.png',), help='CLS-vs-patch cosine plot PNG')
    parser.add_argument('--labels', nargs='+', help='column titles (default: file names)')
    parser.add_argument('--size', type=int, default=224, help='input side in pixels')
    parser.add_argument('--cell', type=int, default=160, help='grid cell side in pixels')
    parser.add_argument('--layer', type=int, default=-1, help='block whose output is shown')
    parser.add_argument('--seed', type=int, default=0, help='for models with random weights')
    args = parser.parse_args(argv)
    if args.labels and len(args.labels) != len(args.models):
        parser.error('--labels needs one label per model')
    return args


def main(argv=None):
    args = parse_args(argv)
    torch.use_deterministic_algorithms(True, warn_only=True)
    try:
        claim_outputs(args, inputs=[*args.images, *model_files(args.models)])
        _, images = load_images(args.images, args.size)
    except VitspecError as exc:
        raise SystemExit(f'visualize_features: {exc}')
    maps, labels, curves = [], [], {}
    for i, source in enumerate(args.models):
        try:
            model, label = load_backbone(
                source, seed=args.seed, out_indices=[args.layer], output_cls_token=False
            )
        except VitspecError as exc:
            raise SystemExit(f'visualize_features: {source}: {exc}')
        label = args.labels[i] if args.labels else label
        inputs = [to_input(img, model.patch_size) for img in images]
        maps.append(pca_rgb([patch_features(model, x) for x in inputs]))
        labels.append(label)
        per_image = [cls_patch_cosine(model, x) for x in inputs]
        if per_image[0]:
            curves[label] = np.mean(per_image, axis=0).tolist()
            print(
                f'{label}: cos(CLS, patch) per block: '
                + ' '.join(f'{v:.3f}' for v in curves[label])
            )
        else:
            print(f'{label}: no CLS token in the self-attention blocks; no cosine curve')
    compose_grid(images, maps, labels, args.cell).save(args.out)
    print(f'wrote {args.out}')
    if args.cosine_out:
        plot_cosine(curves, args.cosine_out)
        print(f'wrote {args.cosine_out}')


if __name__ == '__main__':
    main()
