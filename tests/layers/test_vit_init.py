import torch
from timm.layers import trunc_normal_
from torch import nn

from vitspec.layers import LayerNorm, LayerScale
from vitspec.layers.specialized import SpecializedLinear
from vitspec.layers.vit_init import init_vit_weights


class Root(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)
        self.qkv = SpecializedLinear(8, 12, lora_rank=2)
        self.norm = LayerNorm(8)
        self.ls = LayerScale(8, 0.5)
        self.root_init_calls = 0

    def init_weights(self, std=0.02):  # the root is never called: only its submodules
        self.root_init_calls += 1


def test_linears_get_timm_init_and_specialized_layers_their_own():
    torch.manual_seed(0)
    model = Root()
    with torch.no_grad():
        for p in model.parameters():
            p.fill_(3.0)
    torch.manual_seed(1)
    init_vit_weights(model, std=0.02)
    qkv = SpecializedLinear(8, 12, lora_rank=2)
    torch.manual_seed(1)  # the same draws in module order: fc, then qkv
    want_fc = trunc_normal_(torch.empty(4, 8), std=0.02)
    qkv.init_weights(0.02)
    assert torch.equal(model.fc.weight, want_fc) and not model.fc.bias.any()
    for name, p in qkv.named_parameters():
        assert torch.equal(model.qkv.get_parameter(name), p), name
    assert (model.norm.weight == 3).all() and (model.ls.gamma == 3).all()  # left as they were
    assert model.root_init_calls == 0
