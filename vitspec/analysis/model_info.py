"""Parameters, FLOPs and per-block widths of a config's model and backbone (tools/model_info.py
prints them).

Parameters: the whole model, its backbone, and the backbone's extra parameters over the plain
backbone (the same config with the arguments of its technique fragment(s) back at SpecViT's
defaults). FLOPs: torch.utils.flop_counter (a multiply-add counts 2) of one backbone forward at
the config's crop size (crop_size / image_size, else the backbone's img_size). Per block: heads,
head width, MLP width (layer-wise scaling shows here), window, specialized parts.
"""

import torch
from mmengine.config import Config
from mmengine.registry import MODELS, init_default_scope
from torch.utils.flop_counter import FlopCounterMode

from vitspec.analysis.backbone_source import plain_backbone_cfg, technique_keys
from vitspec.models.backbones.spec_vit import SpecViT


def count(module) -> int:
    return sum(p.numel() for p in module.parameters())


def build_model(cfg: Config):
    init_default_scope(cfg.get('default_scope', 'mmseg'))
    return MODELS.build(cfg.model)


def build_backbone(backbone: dict):
    kwargs = {k: v for k, v in backbone.items() if k not in ('type', 'init_cfg')}
    return SpecViT(**kwargs).eval()


def input_shape(cfg: Config, backbone: dict) -> tuple:
    size = cfg.get('crop_size') or cfg.get('image_size') or backbone.get('img_size', 224)
    return (size, size) if isinstance(size, int) else tuple(size)


def backbone_flops(backbone, shape) -> int:
    x = torch.zeros(1, 3, *shape)
    with torch.no_grad(), FlopCounterMode(display=False) as counter:
        backbone(x)
    return counter.get_total_flops()


def block_rows(backbone) -> list:
    rows = []
    for i, blk in enumerate(backbone.blocks):
        spec = [
            name
            for name, m in (('norm', blk.norm1), ('ls', blk.ls1), ('qkv', blk.attn.qkv))
            if type(m).__name__.startswith('Specialized')
        ]
        rows.append(
            dict(
                block=i,
                heads=blk.attn.num_heads,
                head_dim=blk.attn.head_dim,
                mlp=blk.mlp.fc1.out_features,
                window=blk.attn.window_size,
                specialized=','.join(spec) or '-',
                params=count(blk),
            )
        )
    return rows


def model_info(config: str, shape=None) -> dict:
    cfg = Config.fromfile(config)
    backbone_cfg = cfg.model.backbone.to_dict()
    model = build_model(cfg)
    backbone = build_backbone(backbone_cfg)
    plain = build_backbone(plain_backbone_cfg(backbone_cfg, technique_keys(config)))
    shape = tuple(shape) if shape else input_shape(cfg, backbone_cfg)
    return dict(
        config=config,
        input_shape=list(shape),
        params_model=count(model),
        params_backbone=count(backbone),
        params_plain_backbone=count(plain),
        params_extra=count(backbone) - count(plain),
        flops_backbone=backbone_flops(backbone, shape),
        flops_plain_backbone=backbone_flops(plain, shape),
        blocks=block_rows(backbone),
    )


def format_info(info: dict) -> str:
    extra_pct = 100.0 * info['params_extra'] / max(info['params_plain_backbone'], 1)
    lines = [
        f'config: {info["config"]}',
        f'input: {info["input_shape"][0]}x{info["input_shape"][1]}',
        f'params: model {info["params_model"] / 1e6:.2f} M, backbone '
        f'{info["params_backbone"] / 1e6:.2f} M, extra over plain backbone '
        f'{info["params_extra"] / 1e6:+.3f} M ({extra_pct:+.2f} %)',
        f'FLOPs (backbone, one image): {info["flops_backbone"] / 1e9:.3f} G '
        f'(plain: {info["flops_plain_backbone"] / 1e9:.3f} G)',
        '',
        '| block | heads | head dim | MLP width | window | specialized | params |',
        '|---:|---:|---:|---:|---:|---|---:|',
    ]
    for r in info['blocks']:
        lines.append(
            f'| {r["block"]} | {r["heads"]} | {r["head_dim"]} | {r["mlp"]} | '
            f'{r["window"] or "global"} | {r["specialized"]} | {r["params"]:,} |'
        )
    return '\n'.join(lines)
