"""The demo segmentation and depth models of configs/demo, freshly initialized (random
weights are enough to compare two runtimes), in eval mode; conftest.py makes them fixtures."""

import torch

from tests.utils import ROOT
from vitspec.config.load import load_config
from vitspec.inference.model_loading import build_model

DEMO_SEG = ROOT / 'configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
DEMO_DEPTH = ROOT / 'configs/demo/lin4_specvit-tiny-p8_2xb2-100it_demo-nyu-112x144.py'
DEMO_EOMT = ROOT / 'configs/demo/eomt_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py'
DEMO_ADAPTER = (
    ROOT / 'configs/demo/mask2former_specvit-tiny-p8-adapter_2xb4-500it_demo-ade20k-128x128.py'
)


def demo_model(config):
    torch.manual_seed(0)
    model = build_model(load_config(str(config)))
    model.init_weights()
    with torch.no_grad():  # away from init: zero position embeddings and biases hide errors
        for p in model.parameters():
            if not p.abs().any():
                p.normal_(std=0.02)
    return model.eval()
