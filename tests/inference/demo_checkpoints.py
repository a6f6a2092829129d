"""Checkpoints of freshly built demo models, written as training writes them: the weights, the
config text in ``meta['cfg']``, the dataset's classes, and mmengine's message hub stored as plain
data, as vitspec's Runner stores it (vitspec/engine/checkpointing/plain_data.py). Nothing is
trained: the tests check what is written, not how good it is."""

from pathlib import Path
from typing import Callable, Optional

import torch
from mmengine.logging import HistoryBuffer

from vitspec.config.load import load_config
from vitspec.engine.checkpointing.plain_data import store_as_plain_data
from vitspec.fileio import safe_torch_load

ROOT = Path(__file__).resolve().parents[2]
SEGMENTER = ROOT / 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
DEPTHER = ROOT / 'configs/demo/lin4_specvit-tiny-p8_2xb2-100it_demo-nyu-112x144.py'
DETECTOR = ROOT / 'configs/demo/mask-rcnn_specvit-tiny-p8_simplefpn_2xb4-800it_demo-coco-160x160.py'
EOMT = ROOT / 'configs/demo/eomt_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
EOMT_PANOPTIC = ROOT / 'configs/demo/eomt_specvit-tiny-p8_2xb4-500it_demo-coco-panoptic-128x128.py'


def save_demo_checkpoint(
    config: Path,
    path: Path,
    seed: int = 0,
    meta_cfg: bool = True,
    backbone_from: Optional[Path] = None,
    edit_cfg: Optional[Callable] = None,
) -> Path:
    """``backbone_from``: a checkpoint whose backbone tensors replace this model's (a head
    trained on that frozen backbone); ``edit_cfg(cfg)``: changes the config before the build."""
    from mmseg.registry import DATASETS

    from vitspec.inference.model_loading import build_model

    cfg = load_config(str(config))
    if edit_cfg is not None:
        edit_cfg(cfg)
    torch.manual_seed(seed)
    model = build_model(cfg)
    model.init_weights()
    if backbone_from is not None:
        state = safe_torch_load(str(backbone_from))['state_dict']
        backbone = {k[len('backbone.') :]: v for k, v in state.items() if k.startswith('backbone.')}
        model.backbone.load_state_dict(backbone)
    dataset = cfg.test_dataloader.dataset
    classes = dict(dataset.get('metainfo') or DATASETS.get(dataset.type).METAINFO)
    meta = dict(iter=0, dataset_meta=classes)
    if meta_cfg:
        meta['cfg'] = cfg.pretty_text
    buffer = HistoryBuffer()
    buffer.update(1.0)
    hub = dict(log_scalars={'train/loss': buffer}, runtime_info={}, resumed_keys={})
    checkpoint = dict(meta=meta, state_dict=model.state_dict(), message_hub=hub)
    store_as_plain_data(checkpoint)
    torch.save(checkpoint, path)
    return path
