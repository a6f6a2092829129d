#!/usr/bin/env bash
# The main job on the demo data, setting up first if needed: train a tiny SpecViT segmenter
# with 2 processes (GPUs, or CPU cores without CUDA), evaluate it, print its mIoU.
#   NPROC (2) processes; WORK_DIR (work_dirs/demo); DEMO_DATA (data/demo)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CONFIG=configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py
NPROC=${NPROC:-2}
WORK_DIR=${WORK_DIR:-work_dirs/demo}
DEMO_DATA=${DEMO_DATA:-data/demo}
cd "$ROOT"
tools/install.sh
source tools/_python.sh
"$PYTHON" tools/make_demo_data.py --out "$DEMO_DATA" --datasets ade20k
ROOT_OPT=()
for split in train val test; do
    ROOT_OPT+=("${split}_dataloader.dataset.data_root=$DEMO_DATA/ade20k/ADEChallengeData2016")
done
tools/dist_train.sh "$CONFIG" "$NPROC" --work-dir "$WORK_DIR" --cfg-options "${ROOT_OPT[@]}"
CKPT="$(cat "$WORK_DIR/last_checkpoint")"
tools/dist_test.sh "$CONFIG" "$CKPT" "$NPROC" --work-dir "$WORK_DIR/test" \
    --cfg-options "${ROOT_OPT[@]}" | tee "$WORK_DIR/test.log"
miou=$(sed -n 's/^vitspec-metrics .*"mIoU": \([0-9.]*\).*/\1/p' "$WORK_DIR/test.log")
printf 'demo mIoU: %.2f (checkpoint %s)\n' "${miou:-nan}" "$CKPT"
