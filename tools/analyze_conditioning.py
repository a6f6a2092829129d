"""Condition numbers of the token matrices block by block, for several backbones, with and without
Token Graying ("Always Skip Attention", arXiv 2505.01996).

    python tools/analyze_conditioning.py --models configs/a.py configs/b.py=work/iter_500.pth \\
        --images ../shared/realdata/ade20k/ADEChallengeData2016/images/validation \\
        --out conditioning.png [--json conditioning.json] [--token-graying dct 0.7]

For each model (a config, CONFIG=CHECKPOINT or a converted checkpoint, as
tools/visualize_features.py takes them) and each image (files, folders or glob patterns), the
condition number sigma_max / sigma_min of the (tokens x channels) matrix at each block's input
and at the outputs of its attention and MLP stages (vitspec/analysis/conditioning.py says exactly
what is measured). Prints a table of the median ln kappa over images and draws ln kappa against
block, a panel per place, a line per model. --token-graying adds each model again with Token
Graying of that mode and eps switched on (or off, where the model has it): Token Graying has no
parameters, so the same weights serve both.
"""

import argparse
import json

import torch

from vitspec.analysis.backbone_source import load_backbone, model_files
from vitspec.analysis.conditioning import (
    block_conditioning,
    format_table,
    image_paths,
    median_log_kappa,
    plot_conditioning,
)
from vitspec.analysis.feature_maps import load_images, to_input
from vitspec.errors import VitspecError
from vitspec.fileio import add_output, claim_outputs


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        '--models', nargs='+', required=True, help='CONFIG, CONFIG=CHECKPOINT or CONVERTED each'
    )
    parser.add_argument('--images', nargs='+', required=True, help='files, folders or patterns')
    add_output(parser, '--out', suffixes=('.png',), required=True, help='PNG plot')
    add_output(parser, '--json', suffixes=('.json',), help='the curves and per-image values')
    parser.add_argument('--labels', nargs='+', help='one per model (default: file names)')
    parser.add_argument(
        '--token-graying',
        nargs=2,
        metavar=('MODE', 'EPS'),
        help='also each model with Token Graying (dct or svd, eps) toggled',
    )
    parser.add_argument('--size', type=int, default=224, help='input side in pixels')
    parser.add_argument('--seed', type=int, default=0, help='for models with random weights')
    args = parser.parse_args(argv)
    if args.labels and len(args.labels) != len(args.models):
        parser.error('--labels needs one label per model')
    if args.token_graying and args.token_graying[0] not in ('dct', 'svd'):
        parser.error(f'--token-graying mode must be dct or svd, got {args.token_graying[0]!r}')
    return args


def variants(model, source, label, token_graying, seed):
    """(label, backbone) of a model as it is, and with Token Graying toggled when asked."""
    yield label, model
    if token_graying:
        mode, eps = token_graying[0], float(token_graying[1])
        if model.token_graying is None:
            toggled, what = dict(mode=mode, eps=eps), f'+ token graying {mode} {eps:g}'
        else:
            toggled, what = None, '- token graying'
        yield f'{label} {what}', load_backbone(source, seed=seed, token_graying=toggled)[0]


def main(argv=None):
    args = parse_args(argv)
    try:
        paths = image_paths(args.images)
        claim_outputs(args, inputs=[*paths, *model_files(args.models)])
        paths, images = load_images(paths, args.size)
    except (FileNotFoundError, VitspecError) as exc:
        raise SystemExit(f'analyze_conditioning: {exc}')
    curves, per_image = {}, {}
    for i, source in enumerate(args.models):
        try:
            loaded, default_label = load_backbone(source, seed=args.seed)
        except VitspecError as exc:
            raise SystemExit(f'analyze_conditioning: {source}: {exc}')
        label = args.labels[i] if args.labels else default_label
        for name, model in variants(loaded, source, label, args.token_graying, args.seed):
            batch = torch.cat([to_input(img, model.patch_size) for img in images])
            kappas = block_conditioning(model, batch)
            curves[name] = median_log_kappa(kappas)
            per_image[name] = {stage: k.tolist() for stage, k in kappas.items()}
            print(f'{name}: {len(images)} images, {len(model.blocks)} blocks', flush=True)
    print('\nmedian ln condition number over images\n' + format_table(curves))
    plot_conditioning(curves, args.out)
    print(f'wrote {args.out}')
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(dict(images=paths, median_log_kappa=curves, kappa=per_image), f, indent=1)
        print(f'wrote {args.json}')


if __name__ == '__main__':
    main()
