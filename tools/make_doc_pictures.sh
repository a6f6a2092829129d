#!/usr/bin/env bash
# The pictures in docs/visualization.md, from the real samples in ../shared/realdata:
#   tools/make_doc_pictures.sh [OUT_DIR (docs/pictures)] [MODEL ...]
# MODEL: a config, CONFIG=CHECKPOINT or a converted checkpoint (tools/visualize_features.py);
# default: the plain and specialized demo configs with random weights (seed 0), which show the
# tools work, not what pretraining learns: pass converted DINOv2 / DeiT-III checkpoints for that.
# Env: REALDATA (../shared/realdata), SIZE (224). Work dirs for curves: WORK_DIRS="a b".
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source tools/_python.sh
OUT=${1:-docs/pictures}
shift || true
REALDATA=${REALDATA:-$ROOT/../shared/realdata}
MODELS=("$@")
LABELS=()
if [ ${#MODELS[@]} -eq 0 ]; then
    LABELS=(--labels "plain (random)" "specialized (random)")
    MODELS=(configs/demo/fcn_specvit-tiny-p8-plain_2xb4-500it_demo-ade20k-128x128.py
            configs/demo/fcn_specvit-tiny-p8-spec_2xb4-500it_demo-ade20k-128x128.py)
fi
IMAGES=(
    "$REALDATA/ade20k/ADEChallengeData2016/images/validation/ADE_val_00000001.jpg"
    "$(find "$REALDATA/cityscapes/leftImg8bit" -name '*.png' | sort | head -1)"
    "$(find "$REALDATA/coco/train2017" -name '*.jpg' | sort | head -1)"
    "$(find "$REALDATA/nyu/images" -name '*.jpg' | sort | head -1)"
)
mkdir -p "$OUT"
"$PYTHON" tools/visualize_features.py --models "${MODELS[@]}" --images "${IMAGES[@]}" "${LABELS[@]}" \
    --size "${SIZE:-224}" --cell 160 --seed 0 \
    --out "$OUT/feature_pca.png" --cosine-out "$OUT/cls_patch_cosine.png"
"$PYTHON" tools/model_info.py configs/ade20k/upernet_vit-b14-dinov2-spec_f2p_8xb2-amp-160k_ade20k-512x512.py \
    > "$OUT/model_info_vit-b14-spec.md"
if [ -n "${WORK_DIRS:-}" ]; then
    # shellcheck disable=SC2086
    "$PYTHON" tools/analyze_logs.py $WORK_DIRS --out "$OUT/curves.png" --smooth 5
    # shellcheck disable=SC2086
    "$PYTHON" tools/summarize.py $WORK_DIRS --out "$OUT/results.md"
fi
ls -l "$OUT"
