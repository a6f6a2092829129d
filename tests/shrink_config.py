"""A shipped config made small enough to train and evaluate on the demo data on a CPU: data roots
swapped, image sizes and the model's widths scaled down; everything else (pipelines, TTA, heads,
losses, optimizer constructor, schedule shape, evaluator) as shipped."""

from mmengine.config import Config

SIZE_KEYS = {
    'scale',
    'crop_size',
    'stride',
    'size',
    'img_scale',
    'height',
    'width',
    'pad_size',
    'pad_size_divisor',
}
WIDTH_KEYS = {'in_channels', 'embed_dims', 'embed_dim'}
HEAD_WIDTH_KEYS = {
    'channels',
    'feat_channels',
    'out_channels',
    'conv_out_channels',
    'fc_out_channels',
}


def _scaled_size(value, factor):
    if isinstance(value, int) and not isinstance(value, bool) and value >= 16:
        return max(8, round(value * factor))
    if (
        isinstance(value, (list, tuple))
        and value
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 16 for v in value)
    ):
        return type(value)(max(8, round(v * factor)) for v in value)
    return value


def _walk(node, fn):
    """Apply fn(key, value) -> value to every key of every dict below ``node``."""
    if isinstance(node, dict):
        for key in list(node):
            node[key] = fn(key, node[key])
            _walk(node[key], fn)
    elif isinstance(node, (list, tuple)):
        for item in node:
            _walk(item, fn)


def shrink_sizes(cfg, factor: float):
    """Scale every image size of the data pipelines, preprocessors and inference settings."""

    def fn(key, value):
        if key == 'scales':  # RandomChoiceResize: a list of sizes
            return type(value)(_scaled_size(v, factor) for v in value)
        return _scaled_size(value, factor) if key in SIZE_KEYS else value

    for key in cfg:
        if key != 'model':
            _walk(cfg[key], fn)
    for key in ('data_preprocessor', 'test_cfg'):
        _walk(cfg.model.get(key), fn)


def shrink_widths(model, dims: int, head_width: int):
    """The backbone to ``dims`` channels (head width kept where it can be), every input width
    that followed the backbone's, and the neck / head widths capped at ``head_width``."""
    adapter = model.backbone if 'vit' in model.backbone else None  # ViTAdapter: its ViT
    backbone = model.backbone.vit if adapter else model.backbone
    old = backbone.embed_dims
    head_dim = old // backbone.num_heads
    backbone.num_heads = max(1, dims // min(head_dim, dims))
    for key in ('init_cfg',):
        backbone.pop(key, None)

    def fn(key, value):
        if key in WIDTH_KEYS:
            if value == old:
                return dims
            if isinstance(value, (list, tuple)) and value and all(v == old for v in value):
                return type(value)(dims for _ in value)
        if key == 'post_process_channels':  # DPT: fractions of the backbone width
            return type(value)(max(4, v * dims // old) for v in value)
        if (
            key in HEAD_WIDTH_KEYS | {'in_channels'}
            and isinstance(value, int)
            and value > head_width
        ):  # in_channels here: a neck's or head's output
            return head_width
        return value

    _walk(model, fn)
    backbone.embed_dims = dims
    if adapter is not None:  # the deformable heads divide the new width
        adapter.deform_num_heads = backbone.num_heads
    if model.get('decode_head'):  # attention inside the head (Mask2Former) at the head's width
        _walk(model.decode_head, lambda key, value: _capped(key, value, head_width))
    # Mask2Former's point-sampled mask loss (12544 points per mask, x3 oversampled): a 1/8-size
    # mask has a few hundred pixels
    _walk(model, lambda key, value: min(value, MAX_POINTS) if key == 'num_points' else value)


MAX_POINTS = 256
HEAD_CAPS = {'embed_dims': 1, 'num_feats': 0.5, 'feedforward_channels': 4}


def _capped(key, value, head_width):
    if key in HEAD_CAPS and isinstance(value, int) and value > head_width * HEAD_CAPS[key]:
        return int(head_width * HEAD_CAPS[key])
    return value


PLAIN_FORM = {
    'FiniteLossAmpOptimWrapper': 'FiniteLossOptimWrapper',
    'AmpOptimWrapper': 'OptimWrapper',
}


# mmdet's DINO decoder is 256 wide whatever its config says (its query position encoding has
# 2 x 128 features): the pyramid shrinks, the ChannelMapper after it maps back to 256
DETR_WIDTH = 256
DETR_CAPS = {
    'num_queries': 30,
    'num_queries_one2many': 30,
    'num_dn_queries': 10,
    'feedforward_channels': 64,
    'max_per_img': 30,
}


def shrink_detr(model):
    """A DINO model after shrink_widths: its transformer at mmdet's fixed width, fewer
    queries and narrower FFNs."""
    pyramid, mapper = model.neck.necks
    mapper.update(in_channels=[pyramid.out_channels] * len(mapper.in_channels))
    mapper.out_channels = DETR_WIDTH
    _walk(model, lambda key, value: min(value, DETR_CAPS[key]) if key in DETR_CAPS else value)


def cpu_optim_wrapper(cfg):
    """AMP needs a GPU: the same optimizer and constructor under the wrapper's plain form."""
    if cfg.optim_wrapper.get('type') in PLAIN_FORM:
        cfg.optim_wrapper.type = PLAIN_FORM[cfg.optim_wrapper.type]
        cfg.optim_wrapper.pop('loss_scale', None)
        cfg.optim_wrapper.pop('dtype', None)


def shrink_img_size(backbone, factor: float):
    """The backbone's native grid follows the images (a relative position table is made for
    one grid)."""
    size = backbone.get('img_size', 224)
    size = (size, size) if isinstance(size, int) else size
    patch = backbone.get('patch_size', 16)
    backbone.img_size = tuple(max(patch, round(s * factor / patch) * patch) for s in size)


def shrink(
    path,
    data_root: str,
    work_dir: str,
    factor: float = 1 / 8,
    dims: int = 32,
    head_width: int = 32,
    iters: int = 2,
    num_val: int = 2,
) -> Config:
    cfg = Config.fromfile(path, format_python_code=False)  # yapf: seconds per dump, same text
    shrink_sizes(cfg, factor)
    shrink_widths(cfg.model.get('module', cfg.model), dims, head_width)
    if cfg.model.get('type') == 'DINO':
        shrink_detr(cfg.model)
    elif cfg.model.get('type') == 'PlainDETR':  # fewer queries than the tiny maps' cells
        _walk(cfg.model, lambda k, v: min(v, DETR_CAPS[k]) if k in DETR_CAPS else v)
    backbone = cfg.model.backbone
    shrink_img_size(backbone.get('vit', backbone), factor)
    cpu_optim_wrapper(cfg)
    for split in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        loader = cfg[split]
        loader.update(batch_size=min(loader.batch_size, 2), num_workers=0, persistent_workers=False)
        for dataset in loader.dataset.get('datasets', [loader.dataset]):  # a ConcatDataset's parts
            dataset.data_root = data_root
        if split != 'train_dataloader':
            loader.dataset.indices = num_val
    for key in ('val_evaluator', 'test_evaluator'):
        evaluator = cfg.get(key)
        if isinstance(evaluator, dict) and 'ann_file' in evaluator:  # COCO: the demo's own
            evaluator.ann_file = f'{data_root}/{cfg.val_dataloader.dataset.ann_file}'
    # evaluated by test(): no validation (mmengine's loop validates at max_iters otherwise)
    if cfg.train_cfg.get('type') == 'EpochBasedTrainLoop':  # one epoch of `iters` batches
        cfg.train_dataloader.dataset.indices = iters * cfg.train_dataloader.batch_size
        cfg.train_cfg.update(max_epochs=1, val_interval=2, val_begin=2)
    else:
        cfg.train_cfg.update(max_iters=iters, val_interval=iters + 1, val_begin=iters + 1)
    cfg.default_hooks.checkpoint.update(interval=iters, save_best=None)
    cfg.default_hooks.logger.interval = 1
    cfg.work_dir = work_dir
    cfg.launcher = 'none'
    return cfg
