#!/usr/bin/env bash
# The first command on a GPU machine: mmcv's CUDA ops against their CPU results, then a few
# training iterations of the demo segmentation, depth and COCO configs in fp32, fp16 and bf16
# (one GPU, and all GPUs when there are several), with iterations/s, peak memory and whether the
# losses agree with fp32. Without a GPU it says so and exits 0; --device cpu runs the same checks
# on the CPU (gloo for the multi-process runs).
#   tools/gpu_check.sh [--iters 20] [--tasks segmentation depth detection]
#                      [--precisions fp32 fp16 bf16] [--work-dir work_dirs/gpu_check]
#                      [--data-root data/demo] [--device cuda|cpu] [--processes N]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source tools/_python.sh
exec "$PYTHON" tools/gpu_check.py "$@"
