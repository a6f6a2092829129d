"""Named lists of settings, and the performance targets each preset checks."""

# Like with like under mixed precision: LayerScale models against timm's ViT with the same
# LayerScale (timm-ls), the specialization and its LoRA form against LayerScale alone
AMP_MODELS = ['timm-ls', 'specvit-ls', 'specvit-spec', 'specvit-lora']
GPU_MODELS = [
    'timm',
    'timm-ls',
    'specvit',
    'specvit-ls',
    'specvit-spec',
    'specvit-lora',
    'specvit-tg-dct',
]
# (model, reference, training speed bound, inference speed bound)
AMP_RATIOS = [
    ('specvit-ls', 'timm-ls', '>= 0.97', '>= 0.98'),
    ('specvit-spec', 'specvit-ls', '>= 0.95', '>= 0.98'),
    ('specvit-lora', 'specvit-ls', '>= 0.95', '>= 0.98'),
]
# compiled plain SpecViT, training only: its target is against timm's eager training
GPU_COMPILED = 'specvit+compile'


def _amp_targets(settings):
    return [
        (
            f'{model} vs {ref}, {s["dtype"]} {s["mode"]} speed',
            (i, model),
            (i, ref),
            'speed',
            training if s['mode'] == 'training' else inference,
        )
        for i, s in enumerate(settings)
        for model, ref, training, inference in AMP_RATIOS
    ]


PRESETS = {
    'readme': [
        dict(
            size='s16',
            img=224,
            batch=8,
            dtype='fp32',
            mode='inference',
            rounds=40,
            models=['timm', 'mmseg', 'specvit'],
        ),
        # the specialization's overhead among same-FLOP SpecViTs only
        dict(
            size='s16',
            img=224,
            batch=8,
            dtype='fp32',
            mode='inference',
            rounds=40,
            models=['specvit', 'specvit-ls', 'specvit-spec', 'specvit-lora'],
        ),
        dict(
            size='s16',
            img=224,
            batch=8,
            dtype='fp32',
            mode='training',
            rounds=40,
            models=[
                'timm',
                'specvit',
                'specvit-ls',
                'specvit-spec',
                'specvit-tg-dct',
                'specvit-tg-svd',
            ],
        ),
        dict(
            size='s16', img=224, batch=8, dtype='bf16', mode='inference', models=['specvit', 'timm']
        ),
        dict(
            size='b16',
            img=512,
            batch=1,
            dtype='fp32',
            mode='training',
            models=['specvit', 'specvit-cp'],
            rounds=3,
        ),
    ],
    # torch.compile (inductor) against eager, compiled SpecViT against timm's eager ViT:
    # compilation takes minutes per model, hence a preset of its own
    'compile': [
        dict(
            size='s16',
            img=224,
            batch=8,
            dtype='fp32',
            mode='inference',
            rounds=20,
            models=['timm', 'specvit', 'specvit+compile'],
        ),
        dict(
            size='s16',
            img=224,
            batch=8,
            dtype='fp32',
            mode='training',
            rounds=10,
            models=['timm', 'specvit', 'specvit+compile'],
        ),
    ],
    # SpecViT built from the DINOv3 ViT-S/16 fragment against timm's DINOv3 port, the same
    # random weights in both (vitspec/benchmarking/dinov3.py)
    'dinov3': [
        dict(
            size='s16',
            img=224,
            batch=8,
            dtype='fp32',
            mode=mode,
            rounds=40,
            models=['timm-dinov3', 'specvit-dinov3'],
        )
        for mode in ('inference', 'training')
    ],
    # ViT-B/16 at 224, batch 64, as users train on one GPU (not timed on other devices); under 4
    # minutes there, most of it starting the 30 workers and compiling
    'gpu': [
        dict(
            device='cuda',
            size='b16',
            img=224,
            batch=64,
            dtype=dtype,
            mode=mode,
            rounds=20,
            warmup=5,
            models=GPU_MODELS + ([GPU_COMPILED] if mode == 'training' else []),
        )
        for dtype in ('bf16', 'fp16')
        for mode in ('training', 'inference')
    ],
    # the same ratios under bf16 autocast on a CPU with bf16 units (AMX or AVX512-BF16), a few
    # minutes on 2 cores
    'amp-cpu': [
        dict(
            size='s16',
            img=224,
            batch=4,
            dtype='bf16',
            mode=mode,
            rounds=12,
            warmup=1,
            models=AMP_MODELS,
        )
        for mode in ('training', 'inference')
    ],
    'toy': [
        dict(
            size='t8',
            img=32,
            batch=2,
            dtype='fp32',
            mode='training',
            models=['timm', 'specvit', 'specvit-spec'],
            rounds=2,
        )
    ],
}
# What SpecViT promises against its baselines: the plain backbone is no slower than timm's and
# faster than mmseg's ViT, a technique costs at most a few percent of time or memory, bf16 and
# gradient checkpointing pay off. Each target: (what, (setting, model), (setting, model),
# quantity, bound); the ratio is first / second, and 'speed' compares medians inversely
# (higher is faster).
TARGETS = {
    'readme': [
        ('plain SpecViT vs timm, inference speed', (0, 'specvit'), (0, 'timm'), 'speed', '>= 1.00'),
        (
            'plain SpecViT vs mmseg, inference speed',
            (0, 'specvit'),
            (0, 'mmseg'),
            'speed',
            '> 1.00',
        ),
        (
            'specialized vs plain, inference time',
            (1, 'specvit-spec'),
            (1, 'specvit'),
            'time',
            '<= 1.03',
        ),
        (
            'specialized vs plain, training time',
            (2, 'specvit-spec'),
            (2, 'specvit'),
            'time',
            '<= 1.05',
        ),
        (
            'specialized vs plain, training memory',
            (2, 'specvit-spec'),
            (2, 'specvit'),
            'memory',
            '<= 1.02',
        ),
        (
            'Token Graying DCT vs plain, training time',
            (2, 'specvit-tg-dct'),
            (2, 'specvit'),
            'time',
            '<= 1.02',
        ),
        (
            'Token Graying SVD vs plain, training time',
            (2, 'specvit-tg-svd'),
            (2, 'specvit'),
            'time',
            '<= 1.10',
        ),
        ('bf16 vs fp32, inference speed', (3, 'specvit'), (0, 'specvit'), 'speed', '>= 1.60'),
        (
            'with_cp vs without, training memory at ViT-B 512',
            (4, 'specvit-cp'),
            (4, 'specvit'),
            'memory',
            '<= 0.50',
        ),
    ],
    'dinov3': [
        (
            f'DINOv3 ViT-S/16 SpecViT vs timm, {mode} speed',
            (i, 'specvit-dinov3'),
            (i, 'timm-dinov3'),
            'speed',
            '>= 1.00',
        )
        for i, mode in enumerate(('inference', 'training'))
    ],
    'gpu': [
        *_amp_targets(PRESETS['gpu']),
        *(
            (
                f'compiled SpecViT vs eager timm, {s["dtype"]} training speed',
                (i, GPU_COMPILED),
                (i, 'timm'),
                'speed',
                '>= 1.25',
            )
            for i, s in enumerate(PRESETS['gpu'])
            if GPU_COMPILED in s['models']
        ),
    ],
    'amp-cpu': _amp_targets(PRESETS['amp-cpu']),
    'compile': [
        (
            'compiled SpecViT vs eager timm, inference speed',
            (0, 'specvit+compile'),
            (0, 'timm'),
            'speed',
            '>= 1.20',
        ),
        (
            'compiled vs eager SpecViT, inference speed',
            (0, 'specvit+compile'),
            (0, 'specvit'),
            'speed',
            '>= 1.20',
        ),
        (
            'compiled vs eager SpecViT, training speed',
            (1, 'specvit+compile'),
            (1, 'specvit'),
            'speed',
            '>= 1.00',
        ),
        (
            'compiled SpecViT vs eager timm, training speed',
            (1, 'specvit+compile'),
            (1, 'timm'),
            'speed',
            '>= 1.00',
        ),
    ],
}
