"""DINOv3's COCO detector (Plain-DETR, reparameterized, two-stage, mixed selection, look forward
twice, DETR encoder, windows), rewritten here as plain functions of its state dict in its own key
names, from facebookresearch/dinov3 dinov3/eval/detection/models/{detr, transformer,
transformer_encoder, global_rpe_decomp_decoder, backbone, windows, position_encoding}.py,
util/box_ops.py and hub/detectors.py: the reference the converted PlainDETR is compared with.
Also the released file's key layout, to make synthetic weights. Nothing of mmdet or of vitspec's
detector is used; the cross-attention is Plain-DETR's explicit softmax form (DINOv3 runs SDPA)."""

import math

import torch
import torch.nn.functional as F
from torchvision.transforms.v2 import functional as TF


def layout(
    in_ch,
    dim,
    heads,
    ffn,
    enc_ffn,
    classes,
    queries,
    enc,
    dec,
    rpb,
    strides=(8, 16, 32, 64),
    stride=16,
):
    """Keys and shapes of PlainDETRReParam's state dict (without the frozen ViT)."""
    out = {'input_proj.0.0.weight': (dim, in_ch, 1, 1), 'input_proj.0.0.bias': (dim,)}
    out |= _norm('input_proj.0.1', dim) | {'transformer.level_embed': (1, dim)}
    out |= _lin('transformer.enc_output', dim, dim) | _norm('transformer.enc_output_norm', dim)
    out |= _lin('transformer.pos_trans', 2 * dim, 2 * dim) | _norm(
        'transformer.pos_trans_norm', 2 * dim
    )
    for lvl, s in enumerate(strides):
        steps = int(abs(math.log2(s / stride)))
        for i in range(steps):
            p = f'transformer.enc_output_proj.{lvl}.{3 * i}'
            shape = (dim, dim, 2, 2)
            out |= {f'{p}.weight': shape, f'{p}.bias': (dim,)}
            if i < steps - 1:
                out |= _norm(f'transformer.enc_output_proj.{lvl}.{3 * i + 1}.ln', dim)
    for i in range(enc):
        p = f'transformer.encoder.layers.{i}.'
        out |= _mha(p + 'self_attn', dim) | _lin(p + 'linear1', dim, enc_ffn)
        out |= _lin(p + 'linear2', enc_ffn, dim) | _norm(p + 'norm1', dim) | _norm(p + 'norm2', dim)
    for i in range(dec):
        p = f'transformer.decoder.layers.{i}.'
        for axis in ('cpb_mlp1', 'cpb_mlp2'):
            out |= _lin(f'{p}cross_attn.{axis}.0', 2, rpb) | {
                f'{p}cross_attn.{axis}.2.weight': (heads, rpb)
            }
        for name in ('q', 'k', 'v', 'proj'):
            out |= _lin(f'{p}cross_attn.{name}', dim, dim)
        out |= (
            _mha(p + 'self_attn', dim)
            | _lin(p + 'linear1', dim, ffn)
            | _lin(p + 'linear2', ffn, dim)
        )
        out |= _norm(p + 'norm1', dim) | _norm(p + 'norm2', dim) | _norm(p + 'norm3', dim)
    out |= _norm('transformer.decoder.final_layer_norm', dim)
    for i in range(dec + 1):
        out |= _lin(f'class_embed.{i}', dim, classes)
        for j, o in enumerate((dim, dim, 4)):
            out |= _lin(f'bbox_embed.{i}.layers.{j}', dim, o)
    out['query_embed.weight'] = (queries, dim)
    return out


def _lin(name, i, o):
    return {f'{name}.weight': (o, i), f'{name}.bias': (o,)}


def _norm(name, dim):
    return {f'{name}.weight': (dim,), f'{name}.bias': (dim,)}


def _mha(name, dim):
    return {
        f'{name}.in_proj_weight': (3 * dim, dim),
        f'{name}.in_proj_bias': (3 * dim,),
        f'{name}.out_proj.weight': (dim, dim),
        f'{name}.out_proj.bias': (dim,),
    }


def synthetic(shapes: dict, seed=0) -> dict:
    """Random tensors of ``shapes``: norms near 1, fan-in scaled weights; the decoder's
    class / box branches shared as in the source (``transformer.decoder.*`` copies)."""
    g = torch.Generator().manual_seed(seed)
    sd = {}
    for k, shape in shapes.items():
        t = torch.randn(shape, generator=g)
        if len(shape) > 1:
            t = t * 0.5 / math.prod(shape[1:]) ** 0.5
        elif 'norm' in k or '.ln.' in k or k.startswith('input_proj.0.1'):
            t = 1 + 0.1 * t if k.endswith('weight') else 0.1 * t
        else:
            t = 0.1 * t
        sd[k] = t
    for k in list(sd):
        if k.startswith(('class_embed.', 'bbox_embed.')):
            sd['transformer.decoder.' + k] = sd[k]
    return sd


def backbone_maps(vit_maps, images, windows, patch):
    """DINOBackbone (+ WindowsWrapper): ``vit_maps(x)`` gives the taken layers' normed maps."""
    if not windows:
        return torch.cat(list(vit_maps(images)), 1)
    H, W = images.shape[-2:]
    wh = math.ceil((H // windows) / patch) * patch
    ww = math.ceil((W // windows) / patch) * patch
    hs = [wh] * (windows - 1) + [H - wh * (windows - 1)]
    ws = [ww] * (windows - 1) + [W - ww * (windows - 1)]
    rows = []
    for i in range(windows):
        top = sum(hs[:i])
        cells = []
        for j in range(windows):
            left = sum(ws[:j])
            crop = TF.crop(images, top=top, left=left, height=hs[i], width=ws[j])
            cells.append(torch.cat(list(vit_maps(crop)), 1))
        rows.append(torch.cat(cells, -1))
    win = torch.cat(rows, -2)
    glob = torch.cat(list(vit_maps(TF.resize(images, size=(wh, ww)))), 1)
    return torch.cat([TF.resize(glob, size=win.shape[-2:]), win], 1)


def lin(x, sd, n):
    return F.linear(x, sd[n + '.weight'], sd.get(n + '.bias'))


def ln(x, sd, n):
    return F.layer_norm(x, x.shape[-1:], sd[n + '.weight'], sd[n + '.bias'], 1e-5)


def mha(q, k, v, sd, n, heads, attn_mask=None, key_padding_mask=None):
    out = F.multi_head_attention_forward(
        q.transpose(0, 1),
        k.transpose(0, 1),
        v.transpose(0, 1),
        q.shape[-1],
        heads,
        sd[n + '.in_proj_weight'],
        sd[n + '.in_proj_bias'],
        None,
        None,
        False,
        0.0,
        sd[n + '.out_proj.weight'],
        sd[n + '.out_proj.bias'],
        training=False,
        key_padding_mask=key_padding_mask,
        need_weights=False,
        attn_mask=attn_mask,
    )[0]
    return out.transpose(0, 1)


def sine(mask, num_feats):
    """PositionEmbeddingSine(normalize=True) of a (B, h, w) padding mask -> (B, h*w, 2 F)."""
    not_mask = ~mask
    y = not_mask.cumsum(1, dtype=torch.float32)
    x = not_mask.cumsum(2, dtype=torch.float32)
    y = (y - 0.5) / (y[:, -1:, :] + 1e-6) * 2 * math.pi
    x = (x - 0.5) / (x[:, :, -1:] + 1e-6) * 2 * math.pi
    dim_t = 10000 ** (2 * (torch.arange(num_feats) // 2) / num_feats)
    px, py = x[..., None] / dim_t, y[..., None] / dim_t
    px = torch.stack((px[..., 0::2].sin(), px[..., 1::2].cos()), 4).flatten(3)
    py = torch.stack((py[..., 0::2].sin(), py[..., 1::2].cos()), 4).flatten(3)
    return torch.cat((py, px), 3).flatten(1, 2)


def cxcywh_to_xyxy(b):
    return torch.stack(
        [
            b[..., 0] - b[..., 2] / 2,
            b[..., 1] - b[..., 3] / 2,
            b[..., 0] + b[..., 2] / 2,
            b[..., 1] + b[..., 3] / 2,
        ],
        -1,
    )


def xyxy_to_cxcywh(b):
    return torch.stack(
        [
            (b[..., 0] + b[..., 2]) / 2,
            (b[..., 1] + b[..., 3]) / 2,
            b[..., 2] - b[..., 0],
            b[..., 3] - b[..., 1],
        ],
        -1,
    )


def delta2bbox(p, d, max_shape):
    clip = abs(math.log(16 / 1000))
    dwh = d[..., 2:].clamp(-clip, clip)
    gxy = p[..., :2] + p[..., 2:] * d[..., :2]
    gwh = p[..., 2:] * dwh.exp()
    out = torch.cat([gxy - gwh / 2, gxy + gwh / 2], -1)
    out[..., 0::2] = torch.minimum(out[..., 0::2].clamp(min=0), max_shape[1])
    out[..., 1::2] = torch.minimum(out[..., 1::2].clamp(min=0), max_shape[0])
    return out


def box_mlp(x, sd, n):
    x = F.relu(lin(x, sd, n + '.layers.0'))
    return lin(F.relu(lin(x, sd, n + '.layers.1')), sd, n + '.layers.2')


def pyramid(mem, sd, lvl, in_stride, stride):
    steps = int(abs(math.log2(stride / in_stride)))
    conv = F.conv2d if stride > in_stride else F.conv_transpose2d
    p = f'transformer.enc_output_proj.{lvl}.'
    for i in range(steps):
        mem = conv(mem, sd[f'{p}{3 * i}.weight'], sd[f'{p}{3 * i}.bias'], stride=2)
        if i < steps - 1:
            mem = F.gelu(ln(mem.permute(0, 2, 3, 1), sd, f'{p}{3 * i + 1}.ln').permute(0, 3, 1, 2))
    return mem


def box_rpb_attention(q_in, boxes, k_in, v_in, hw, pad, sd, n, heads, stride):
    h, w = hw
    ref = torch.cat([boxes[..., :2] - boxes[..., 2:] / 2, boxes[..., :2] + boxes[..., 2:] / 2], -1)[
        :, :, None
    ]
    pos_x = torch.linspace(0.5, w - 0.5, w)[None, None, :, None] * stride
    pos_y = torch.linspace(0.5, h - 0.5, h)[None, None, :, None] * stride
    mlp = lambda t, m: lin(F.relu(lin(t, sd, f'{n}.{m}.0')), sd, f'{n}.{m}.2')  # noqa: E731
    rpe_x, rpe_y = mlp(ref[..., 0::2] - pos_x, 'cpb_mlp1'), mlp(ref[..., 1::2] - pos_y, 'cpb_mlp2')
    rpe = (rpe_x[:, :, None] + rpe_y[:, :, :, None]).flatten(2, 3).permute(0, 3, 1, 2)
    B, N, C = k_in.shape
    split = lambda t: t.reshape(B, -1, heads, C // heads).permute(0, 2, 1, 3)  # noqa: E731
    q = split(lin(q_in, sd, n + '.q')) * (C // heads) ** -0.5
    k, v = split(lin(k_in, sd, n + '.k')), split(lin(v_in, sd, n + '.v'))
    attn = (q @ k.transpose(-2, -1) + rpe + pad[:, None, None] * -100).softmax(-1)
    return lin((attn @ v).transpose(1, 2).reshape(B, -1, C), sd, n + '.proj')


def detect(sd, vit_maps, images, sizes, cfg):
    """(raw outputs dict as PlainDETRReParam's, post-processed list as PostProcess's) for the
    padded batch ``images`` of images of ``sizes`` (h, w); hub inference: one-to-one queries."""
    B, _, H, W = images.shape
    img_mask = torch.ones(B, H, W, dtype=torch.bool)
    for m, (h, w) in zip(img_mask, sizes):
        m[:h, :w] = False
    feats = backbone_maps(vit_maps, images, cfg['windows'], cfg['patch'])
    mask = F.interpolate(img_mask[None].float(), size=feats.shape[-2:]).to(torch.bool)[0]
    src = F.group_norm(
        F.conv2d(feats, sd['input_proj.0.0.weight'], sd['input_proj.0.0.bias']),
        32,
        sd['input_proj.0.1.weight'],
        sd['input_proj.0.1.bias'],
    )
    _, C, h, w = src.shape
    pos = sine(mask, C // 2) + sd['transformer.level_embed'][0]
    x = src.flatten(2).transpose(1, 2)
    mflat = mask.flatten(1)
    for i in range(cfg['enc']):  # post-norm DETR encoder layer
        p = f'transformer.encoder.layers.{i}.'
        x = ln(
            x + mha(x + pos, x + pos, x, sd, p + 'self_attn', cfg['heads'], key_padding_mask=mflat),
            sd,
            p + 'norm1',
        )
        x = ln(x + lin(F.relu(lin(x, sd, p + 'linear1')), sd, p + 'linear2'), sd, p + 'norm2')
    memory = x
    # proposals (TransformerReParam.gen_encoder_output_proposals, expand_encoder_output)
    fmap = memory.transpose(1, 2).reshape(B, C, h, w)
    mems, masks, shapes = [], [], []
    for lvl, s in enumerate(cfg['strides']):
        m = pyramid(fmap, sd, lvl, cfg['patch'], s)
        mems.append(m.flatten(2).transpose(1, 2))
        masks.append(
            F.interpolate(mask[None].float(), size=m.shape[-2:]).to(torch.bool)[0].flatten(1)
        )
        shapes.append(m.shape[-2:])
    mem, pmask = torch.cat(mems, 1), torch.cat(masks, 1)
    props = []
    for lvl, ((hh, ww), s) in enumerate(zip(shapes, cfg['strides'])):
        gy, gx = torch.meshgrid(
            torch.linspace(0, hh - 1, hh), torch.linspace(0, ww - 1, ww), indexing='ij'
        )
        grid = (torch.stack([gx, gy], -1)[None].expand(B, -1, -1, -1) + 0.5) * s
        props.append(
            torch.cat([grid, torch.ones_like(grid) * cfg['min_size'] * 2.0**lvl], -1).view(B, -1, 4)
        )
    props = torch.cat(props, 1)
    h0, w0 = shapes[0]
    m0 = pmask[:, : h0 * w0].view(B, h0, w0)
    vh = (~m0[:, :, 0]).sum(1, keepdim=True) * cfg['strides'][0]
    vw = (~m0[:, 0, :]).sum(1, keepdim=True) * cfg['strides'][0]
    size = torch.cat([vw, vh, vw, vh], -1)[:, None]
    valid = ((props > 0.01 * size) & (props < 0.99 * size)).all(-1, keepdim=True)
    props = props.masked_fill(pmask[..., None], max(h0, w0) * cfg['strides'][0]).masked_fill(
        ~valid, max(h0, w0) * cfg['strides'][0]
    )
    mem = ln(
        lin(
            mem.masked_fill(pmask[..., None], 0).masked_fill(~valid, 0),
            sd,
            'transformer.enc_output',
        ),
        sd,
        'transformer.enc_output_norm',
    )
    max_shape = (vh[:, None], vw[:, None])
    dec = cfg['dec']
    enc_logits = lin(mem, sd, f'class_embed.{dec}')
    enc_delta = box_mlp(mem, sd, f'bbox_embed.{dec}')
    enc_boxes = xyxy_to_cxcywh(delta2bbox(props, enc_delta, max_shape))
    Q = cfg['queries']
    top = torch.topk(enc_logits[..., 0], Q, dim=1)[1]
    ref = torch.gather(enc_boxes, 1, top[..., None].repeat(1, 1, 4))
    # proposal position embedding (get_proposal_pos_embed), mixed selection
    nf = C // 2
    dim_t = 10000 ** (2 * (torch.arange(nf, dtype=torch.float32) // 2) / nf)
    pe = ref * 2 * math.pi
    pe = pe[..., None] / dim_t
    pe = torch.stack((pe[..., 0::2].sin(), pe[..., 1::2].cos()), 4).flatten(2)
    qpos = ln(lin(pe, sd, 'transformer.pos_trans'), sd, 'transformer.pos_trans_norm')[..., :C]
    tgt = sd['query_embed.weight'][:Q][None].expand(B, -1, -1)
    init_ref, inter_refs, hs = ref, [], []
    for i in range(dec):  # GlobalDecoder with pre-norm layers
        p = f'transformer.decoder.layers.{i}.'
        t2 = ln(tgt, sd, p + 'norm2')
        tgt = tgt + mha(t2 + qpos, t2 + qpos, t2, sd, p + 'self_attn', cfg['heads'])
        t2 = ln(tgt, sd, p + 'norm1')
        tgt = tgt + box_rpb_attention(
            t2 + qpos,
            ref,
            memory + pos,
            memory,
            (h, w),
            mflat.float(),
            sd,
            p + 'cross_attn',
            cfg['heads'],
            cfg['patch'],
        )
        t2 = ln(tgt, sd, p + 'norm3')
        tgt = tgt + lin(F.relu(lin(t2, sd, p + 'linear1')), sd, p + 'linear2')
        out = ln(tgt, sd, 'transformer.decoder.final_layer_norm')
        new_ref = xyxy_to_cxcywh(
            delta2bbox(ref, box_mlp(out, sd, f'transformer.decoder.bbox_embed.{i}'), max_shape)
        )
        ref = new_ref.detach()
        hs.append(out)
        inter_refs.append(new_ref)
    logits, boxes = [], []
    for lvl in range(dec):  # PlainDETRReParam.forward
        reference = init_ref if lvl == 0 else inter_refs[lvl - 1]
        logits.append(lin(hs[lvl], sd, f'class_embed.{lvl}'))
        boxes.append(
            xyxy_to_cxcywh(
                delta2bbox(reference, box_mlp(hs[lvl], sd, f'bbox_embed.{lvl}'), max_shape)
            )
        )
    outputs = dict(
        logits=torch.stack(logits),
        boxes=torch.stack(boxes),
        enc_logits=enc_logits,
        enc_boxes=enc_boxes,
    )
    # PostProcess(topk, reparam=True), target = original = the image sizes
    prob = logits[-1].sigmoid()
    scores, idx = torch.topk(prob.view(B, -1), cfg['topk'], dim=1)
    xyxy = torch.gather(
        cxcywh_to_xyxy(boxes[-1]), 1, (idx // prob.shape[2])[..., None].repeat(1, 1, 4)
    )
    sz = torch.tensor(sizes, dtype=torch.float32)
    ih, iw = sz[:, 0, None, None], sz[:, 1, None, None]
    xyxy[..., 0::2] = torch.minimum(xyxy[..., 0::2].clamp(min=0), iw)
    xyxy[..., 1::2] = torch.minimum(xyxy[..., 1::2].clamp(min=0), ih)
    post = [dict(scores=s, labels=i % prob.shape[2], boxes=b) for s, i, b in zip(scores, idx, xyxy)]
    return outputs, post
