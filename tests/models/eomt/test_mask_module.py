import pytest
import torch
import torch.nn.functional as F

from vitspec.models.eomt.mask_module import EoMTHead, num_upscale_blocks


@pytest.mark.parametrize('patch,blocks', [(16, 2), (14, 1), (8, 1), (32, 3)])
def test_upscale_count_is_upstreams(patch, blocks):
    assert num_upscale_blocks(patch) == blocks
    assert len(EoMTHead(8, 3, patch).upscale) == blocks


def plain_head(head, queries, patch_map):
    """The mask module in torch ops: MLP(GELU) on queries, (transposed conv, GELU, depthwise
    conv, channel LayerNorm) per scale block, dot products per pixel."""
    m = head.mask_head
    embed = m[4](F.gelu(m[2](F.gelu(m[0](queries)))))
    x = patch_map
    for block in head.upscale:
        x = F.conv_transpose2d(x, block.conv1.weight, block.conv1.bias, stride=2)
        x = F.conv2d(F.gelu(x), block.conv2.weight, padding=1, groups=x.shape[1])
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, x.shape[-1:], block.norm.weight, block.norm.bias, 1e-6)
        x = x.permute(0, 3, 1, 2)
    masks = (embed[:, :, None, None, :] * x.permute(0, 2, 3, 1)[:, None]).sum(-1)
    return masks, queries @ head.class_head.weight.T + head.class_head.bias


@pytest.mark.parametrize('mode', ['fp32', 'bf16'])
def test_head_matches_plain_ops(mode):
    torch.manual_seed(0)
    head = EoMTHead(8, num_classes=3, patch_size=16)
    with torch.no_grad():
        for p in head.parameters():
            p.add_(torch.randn_like(p) * 0.2)
    queries, patch_map = torch.randn(2, 5, 8), torch.randn(2, 8, 3, 4)
    with torch.autocast('cpu', dtype=torch.bfloat16, enabled=mode == 'bf16'):
        masks, classes = head(queries, patch_map)
    assert masks.shape == (2, 5, 12, 16) and classes.shape == (2, 5, 4)
    ref_masks, ref_classes = plain_head(head, queries, patch_map)
    tol = dict(atol=0.1, rtol=0.05) if mode == 'bf16' else dict(atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(masks.float(), ref_masks, **tol)
    torch.testing.assert_close(classes.float(), ref_classes, **tol)
