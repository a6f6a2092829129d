"""A reference of tue-mps/eomt's network, written here in plain torch after the structure of its
models/eomt.py, models/scale_block.py and models/vit.py (timm ViT backbone) and wrapped as its
Lightning module saves it (``network.*``, ``criterion.empty_weight``): queries prepended, the
attention of each block recomputed from the timm block's parts with an explicit softmax."""

import math

import torch
import torch.nn.functional as F
from timm.layers import LayerNorm2d
from timm.models.vision_transformer import VisionTransformer
from torch import nn

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)


class RefScaleBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.conv1 = nn.ConvTranspose2d(dim, dim, kernel_size=2, stride=2)
        self.act = nn.GELU()
        self.conv2 = nn.Conv2d(dim, dim, 3, padding=1, groups=dim, bias=False)
        self.norm = LayerNorm2d(dim)

    def forward(self, x):
        return self.norm(self.conv2(self.act(self.conv1(x))))


class RefEncoder(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.register_buffer('pixel_mean', torch.tensor(IMAGENET_MEAN).reshape(1, -1, 1, 1))
        self.register_buffer('pixel_std', torch.tensor(IMAGENET_STD).reshape(1, -1, 1, 1))


class RefEoMT(nn.Module):
    def __init__(self, backbone: VisionTransformer, num_classes, num_q, num_blocks):
        super().__init__()
        self.encoder = RefEncoder(backbone)
        self.num_q, self.num_blocks = num_q, num_blocks
        dim = backbone.embed_dim
        self.register_buffer('attn_mask_probs', torch.ones(num_blocks))
        self.q = nn.Embedding(num_q, dim)
        self.class_head = nn.Linear(dim, num_classes + 1)
        self.mask_head = nn.Sequential(
            nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim)
        )
        patch = max(backbone.patch_embed.patch_size)
        num_upscale = max(1, int(math.log2(patch)) - 2)
        self.upscale = nn.Sequential(*[RefScaleBlock(dim) for _ in range(num_upscale)])

    def _predict(self, x):
        bb = self.encoder.backbone
        q = x[:, : self.num_q]
        p = x[:, self.num_q + bb.num_prefix_tokens :]
        p = p.transpose(1, 2).reshape(x.shape[0], -1, *bb.patch_embed.grid_size)
        masks = torch.einsum('bqc,bchw->bqhw', self.mask_head(q), self.upscale(p))
        return masks, self.class_head(q)

    def _attn_mask(self, x, mask_logits, i):
        bb = self.encoder.backbone
        start = self.num_q + bb.num_prefix_tokens
        mask = torch.ones(x.shape[0], x.shape[1], x.shape[1], dtype=torch.bool)
        resized = F.interpolate(mask_logits, bb.patch_embed.grid_size, mode='bilinear')
        mask[:, : self.num_q, start:] = resized.flatten(2) > 0
        prob = self.attn_mask_probs[i - len(bb.blocks) + self.num_blocks]
        if prob < 1:
            free = torch.rand(x.shape[0], self.num_q) > prob
            mask[:, : self.num_q, start:][free] = True
        return mask

    @staticmethod
    def _attn(attn, x, mask):
        B, N, C = x.shape
        qkv = attn.qkv(x).reshape(B, N, 3, attn.num_heads, C // attn.num_heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        logits = (q @ k.transpose(-2, -1)) * (C // attn.num_heads) ** -0.5
        if mask is not None:
            logits = logits.masked_fill(~mask[:, None], float('-inf'))
        out = logits.softmax(-1) @ v
        return attn.proj(out.transpose(1, 2).reshape(B, N, C))

    def forward(self, img):
        bb = self.encoder.backbone
        x = (img - self.encoder.pixel_mean) / self.encoder.pixel_std
        x = bb._pos_embed(bb.patch_embed(x))
        first = len(bb.blocks) - self.num_blocks
        mask, masks, classes = None, [], []
        for i, block in enumerate(bb.blocks):
            if i == first:
                x = torch.cat([self.q.weight[None].expand(x.shape[0], -1, -1), x], dim=1)
            if i >= first:
                mask_logits, class_logits = self._predict(bb.norm(x))
                masks.append(mask_logits)
                classes.append(class_logits)
                mask = self._attn_mask(x, mask_logits, i)
            x = x + block.ls1(self._attn(block.attn, block.norm1(x), mask))
            x = x + block.ls2(block.mlp(block.norm2(x)))
        mask_logits, class_logits = self._predict(bb.norm(x))
        return masks + [mask_logits], classes + [class_logits]


class RefCriterion(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.register_buffer('empty_weight', torch.ones(num_classes + 1))


class RefLightningModule(nn.Module):
    """What ``pytorch_model.bin`` holds: ``network.*`` and ``criterion.empty_weight``."""

    def __init__(self, network: RefEoMT, num_classes):
        super().__init__()
        self.network = network
        self.criterion = RefCriterion(num_classes)


def reference_eomt(
    seed=0, img_size=64, dim=32, depth=4, heads=2, registers=2, classes=5, queries=6, blocks=2
):
    """A small randomized reference (every parameter perturbed, LayerScale far from 0)."""
    torch.manual_seed(seed)
    vit = VisionTransformer(
        img_size=img_size,
        patch_size=16,
        embed_dim=dim,
        depth=depth,
        num_heads=heads,
        reg_tokens=registers,
        no_embed_class=True,
        init_values=1e-5,
        num_classes=0,
    )
    ref = RefLightningModule(RefEoMT(vit, classes, queries, blocks), classes)
    with torch.no_grad():
        for name, p in ref.named_parameters():
            if name.endswith('.gamma'):
                p.copy_(torch.randn_like(p) * 0.5)
            else:
                p.add_(torch.randn_like(p) * 0.2)
    return ref.eval()
