"""Backbone speed and memory, side by side in ONE run: interleaved, repeated, medians, ratios.

    python tools/benchmark.py --preset readme            # the tables of docs/benchmarks.md
    python tools/benchmark.py --preset dinov3            # SpecViT's DINOv3 ViT-S/16 vs timm's
    python tools/benchmark.py --preset gpu               # ViT-B/16 batch 64, bf16 / fp16, a GPU
    python tools/benchmark.py --preset amp-cpu           # the same ratios in bf16 on a CPU
    python tools/benchmark.py --models timm specvit specvit-spec --size s16 --img 224 --batch 8
    python tools/benchmark.py --config configs/ade20k/A.py --config mmseg::mae/B.py  # train steps
    python tools/benchmark.py --mmcv-ops  # mmcv's ops: vitspec's kernels vs compiled ones

Each configuration is built in its own worker process and timed in turn, one worker at a time,
round after round (the order rotating from round to round), so drift of the machine hits all
of them alike and none inherits another's heap (glibc is told to keep what it frees, see
vitspec/benchmarking/worker.py). The table reports the median time per batch and the speed
against the baseline (the first model unless --baseline): the median over rounds of the ratio of
the two times of the SAME round, which cancels the host's slower drift, with its
distribution-free 95 % interval (order statistics). Memory: peak allocated on CUDA; on CPU, the
bytes of tensors saved for backward (activation memory), which is what gradient checkpointing
reduces. Also measures the machine's dense GEMM rate and the fraction of it each model achieves.
Training settings also count each model's aten ops, casts and GEMMs over one eager forward +
backward at batch 2 (vitspec/benchmarking/op_counts.py): on a GPU each op is a kernel. bf16
(fp16) is not timed on a CPU without AMX or AVX512-BF16 (-FP16), where it would only be
emulated. Presets also check their performance targets (vitspec/benchmarking/presets.py).

--config times whole training steps instead: each config's model and optim_wrapper built as its
train script builds them, `model.train_step` on random data of the config's crop size and batch
(--batch overrides it; --cfg-options changes every config), in the same interleaved rounds; it
reports s/iter, images/s, memory (CUDA: peak allocated; CPU: saved for backward) and the speed
against the first config. Configs of installed packages: mmseg::path, mmdet::path.
"""

from vitspec.benchmarking.cli import main

if __name__ == '__main__':
    main()
