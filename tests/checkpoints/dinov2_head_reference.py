"""DINOv2's released decode heads, rewritten here as plain functions of their state dicts, in
their own key names (read from facebookresearch/dinov2: eval/segmentation/models/decode_heads/
linear_head.py BNHead; eval/depth/models/decode_heads/linear_head.py BNHead, decode_head.py
depth_pred, dpt_head.py DPTHead): the reference the converted heads are compared with. Also the
key layout of each head, as its modules name their parameters, to make synthetic weights."""

import torch
import torch.nn.functional as F

P = 'decode_head.'


def _resize(x, size, align_corners=False):
    return F.interpolate(x, size=size, mode='bilinear', align_corners=align_corners)


# --- segmentation BNHead: resize_concat of in_index, SyncBN, conv_seg -------------------------


def seg_bnhead_layout(channels: int, num_classes: int) -> dict:
    return {
        'bn.weight': (channels,),
        'bn.bias': (channels,),
        'bn.running_mean': (channels,),
        'bn.running_var': (channels,),
        'bn.num_batches_tracked': (),
        'conv_seg.weight': (num_classes, channels, 1, 1),
        'conv_seg.bias': (num_classes,),
    }


def seg_bnhead(sd: dict, inputs: list, in_index: list) -> torch.Tensor:
    """``inputs``: all the maps get_intermediate_layers returned; the head picks ``in_index``."""
    picked = [inputs[i] for i in in_index]
    x = torch.cat([_resize(t, picked[0].shape[2:]) for t in picked], dim=1)
    x = F.batch_norm(
        x,
        sd[P + 'bn.running_mean'],
        sd[P + 'bn.running_var'],
        sd[P + 'bn.weight'],
        sd[P + 'bn.bias'],
        training=False,
        eps=1e-5,
    )
    return F.conv2d(x, sd[P + 'conv_seg.weight'], sd[P + 'conv_seg.bias'])


# --- depth BNHead (linear): (map, cls) concatenated, resized x upsample, 1x1 conv, bins ---------


def linear_depth_layout(channels: int, n_bins: int = 256) -> dict:
    return {'conv_depth.weight': (n_bins, channels, 1, 1), 'conv_depth.bias': (n_bins,)}


def depth_from_bins(logit, min_depth, max_depth):
    """DepthBaseDecodeHead.depth_pred, classify with 'UD' bins and 'linear' normalisation."""
    bins = torch.linspace(min_depth, max_depth, logit.shape[1])
    logit = torch.relu(logit) + 0.1
    logit = logit / logit.sum(dim=1, keepdim=True)
    return torch.einsum('ikmn,k->imn', logit, bins).unsqueeze(1)


def linear_depth(sd, inputs, in_index, upsample, min_depth, max_depth):
    maps = [torch.cat([x, cls[:, :, None, None].expand_as(x)], 1) for x, cls in inputs]
    maps = [maps[i] for i in in_index]
    size = [s * upsample for s in maps[0].shape[2:]]
    x = torch.cat([_resize(m, size) for m in maps], dim=1)
    logit = F.conv2d(x, sd[P + 'conv_depth.weight'], sd[P + 'conv_depth.bias'])
    return depth_from_bins(logit, min_depth, max_depth)


# --- depth DPTHead --------------------------------------------------------------------------


def dpt_layout(embed_dims: int, post: list, channels: int) -> dict:
    out = {}
    for i, c in enumerate(post):
        out[f'reassemble_blocks.projects.{i}.conv.weight'] = (c, embed_dims, 1, 1)
        out[f'reassemble_blocks.projects.{i}.conv.bias'] = (c,)
        out[f'reassemble_blocks.readout_projects.{i}.0.weight'] = (embed_dims, 2 * embed_dims)
        out[f'reassemble_blocks.readout_projects.{i}.0.bias'] = (embed_dims,)
        out[f'convs.{i}.conv.weight'] = (channels, c, 3, 3)
    for i, k in ((0, 4), (1, 2)):  # ConvTranspose2d: (in, out, k, k)
        out[f'reassemble_blocks.resize_layers.{i}.weight'] = (post[i], post[i], k, k)
        out[f'reassemble_blocks.resize_layers.{i}.bias'] = (post[i],)
    out['reassemble_blocks.resize_layers.3.weight'] = (post[3], post[3], 3, 3)
    out['reassemble_blocks.resize_layers.3.bias'] = (post[3],)
    for j in range(4):
        units = (2,) if j == 0 else (1, 2)  # fusion_blocks[0].res_conv_unit1 = None
        for u in units:
            for conv in ('conv1', 'conv2'):
                out[f'fusion_blocks.{j}.res_conv_unit{u}.{conv}.conv.weight'] = (
                    channels,
                    channels,
                    3,
                    3,
                )
        out[f'fusion_blocks.{j}.project.conv.weight'] = (channels, channels, 1, 1)
        out[f'fusion_blocks.{j}.project.conv.bias'] = (channels,)
    out['project.conv.weight'] = (channels, channels, 3, 3)
    out['project.conv.bias'] = (channels,)
    half = channels // 2
    for name, shape in (
        ('0', (half, channels, 3, 3)),
        ('2', (32, half, 3, 3)),
        ('4', (1, 32, 1, 1)),
    ):
        out[f'conv_depth.head.{name}.weight'] = shape
        out[f'conv_depth.head.{name}.bias'] = (shape[0],)
    return out


def _conv(sd, name, x, **kw):
    return F.conv2d(x, sd[P + name + '.weight'], sd.get(P + name + '.bias'), **kw)


def _residual_unit(sd, name, x):  # PreActResidualConvUnit: order (act, conv, norm), no norm
    y = _conv(sd, name + '.conv1.conv', F.relu(x), padding=1)
    y = _conv(sd, name + '.conv2.conv', F.relu(y), padding=1)
    return y + x


def _fusion(sd, j, x, res=None):
    if res is not None:
        if x.shape != res.shape:
            res = _resize(res, x.shape[2:])
        x = x + _residual_unit(sd, f'fusion_blocks.{j}.res_conv_unit1', res)
    x = _residual_unit(sd, f'fusion_blocks.{j}.res_conv_unit2', x)
    x = F.interpolate(x, scale_factor=2, mode='bilinear', align_corners=True)
    return _conv(sd, f'fusion_blocks.{j}.project.conv', x)


def dpt(sd, inputs, min_depth):
    levels = []
    for i, (x, cls) in enumerate(inputs):
        shape = x.shape
        tokens = x.flatten(2).permute(0, 2, 1)
        readout = cls.unsqueeze(1).expand_as(tokens)
        name = f'reassemble_blocks.readout_projects.{i}.0'
        tokens = F.gelu(
            F.linear(
                torch.cat([tokens, readout], -1), sd[P + name + '.weight'], sd[P + name + '.bias']
            )
        )
        x = tokens.permute(0, 2, 1).reshape(shape)
        x = _conv(sd, f'reassemble_blocks.projects.{i}.conv', x)
        w, b = (sd.get(P + f'reassemble_blocks.resize_layers.{i}.{n}') for n in ('weight', 'bias'))
        if i in (0, 1):
            x = F.conv_transpose2d(x, w, b, stride=4 if i == 0 else 2)
        elif i == 3:
            x = F.conv2d(x, w, b, stride=2, padding=1)
        levels.append(_conv(sd, f'convs.{i}.conv', x, padding=1))
    out = _fusion(sd, 0, levels[-1])
    for j in range(1, 4):
        out = _fusion(sd, j, out, levels[-(j + 1)])
    out = F.relu(_conv(sd, 'project.conv', out, padding=1))
    out = _conv(sd, 'conv_depth.head.0', out, padding=1)
    out = F.interpolate(out, scale_factor=2, mode='bilinear', align_corners=True)
    out = F.relu(_conv(sd, 'conv_depth.head.2', out, padding=1))
    out = _conv(sd, 'conv_depth.head.4', out)
    return F.relu(out) + min_depth  # depth_pred, regression without scale_up


def synthetic(layout: dict, seed: int = 0) -> dict:
    """Random tensors under the released names (``decode_head.`` prefixed), BN statistics valid."""
    g = torch.Generator().manual_seed(seed)
    out = {}
    for key, shape in layout.items():
        if key.endswith('num_batches_tracked'):
            out[P + key] = torch.tensor(1000)
        elif key.endswith('running_var'):
            out[P + key] = torch.rand(shape, generator=g) + 0.5
        else:
            out[P + key] = torch.randn(shape, generator=g) * 0.2
    return out
