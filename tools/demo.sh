#!/usr/bin/env bash
# The first run, setting up first if needed: train a tiny SpecViT segmenter on the procedural demo
# data with 2 processes (GPUs, or CPU cores without CUDA), evaluate it with tools/dist_test.sh,
# print the training loss falling, its mIoU and what to run next.
#   tools/demo.sh               the short job: 150 iterations on 80x80 images (2-3 min on 2 cores)
#   tools/demo.sh --long        the main demo job: 500 iterations on 128x128 images (about 9 min)
#   tools/demo.sh --no-install  use the environment as it is (tools/install.sh is not run)
#   DEMO=long as --long; NPROC (2) processes; WORK_DIR (work_dirs/demo-short, or work_dirs/demo
#   with --long); DEMO_DATA (data/demo)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SHORT=configs/demo/fcn_specvit-tiny-p8_2xb4-150it_demo-ade20k-80x80.py
LONG=configs/demo/fcn_specvit-tiny-p8_2xb4-500it_demo-ade20k-128x128.py
# what to run next: the data check and training on real ADE20K (mmseg's layout in data/ade/)
REAL=configs/ade20k/linear_vit-b14-dinov2_bnhead_8xb2-40k_ade20k-512x512.py
usage() { sed -n '2,9s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }
DEMO=${DEMO:-short}
INSTALL=1
for arg in "$@"; do
    case "$arg" in
        --long) DEMO=long ;;
        --no-install) INSTALL=0 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "$0: unknown argument '$arg'" >&2; usage >&2; exit 2 ;;
    esac
done
case "$DEMO" in
    short) CONFIG=$SHORT; WORK_DIR=${WORK_DIR:-work_dirs/demo-short} ;;
    long) CONFIG=$LONG; WORK_DIR=${WORK_DIR:-work_dirs/demo} ;;
    *) echo "$0: DEMO must be short or long, got '$DEMO'" >&2; exit 2 ;;
esac
NPROC=${NPROC:-2}
DEMO_DATA=${DEMO_DATA:-data/demo}
cd "$ROOT"
[ "$INSTALL" = 0 ] || tools/install.sh
source tools/_python.sh
"$PYTHON" tools/make_demo_data.py --out "$DEMO_DATA" --datasets ade20k
ROOT_OPT=()
for split in train val test; do
    ROOT_OPT+=("${split}_dataloader.dataset.data_root=$DEMO_DATA/ade20k/ADEChallengeData2016")
done
mkdir -p "$WORK_DIR"
tools/dist_train.sh "$CONFIG" "$NPROC" --work-dir "$WORK_DIR" --cfg-options "${ROOT_OPT[@]}" \
    | tee "$WORK_DIR/train.log"
CKPT="$(cat "$WORK_DIR/last_checkpoint")"
tools/dist_test.sh "$CONFIG" "$CKPT" "$NPROC" --work-dir "$WORK_DIR/test" \
    --cfg-options "${ROOT_OPT[@]}" | tee "$WORK_DIR/test.log"
# "Iter(train) [ 10/150]  lr: ...  loss: 3.8089  decode.loss_ce: ..." -> "10 3.8089"
losses=$(sed -n 's/.*Iter(train) *\[ *\([0-9]*\)\/[0-9]*\].* loss: \([0-9.]*\).*/\1 \2/p' \
    "$WORK_DIR/train.log")
read -r first_iter first_loss <<<"$(head -n 1 <<<"$losses")"
read -r last_iter last_loss <<<"$(tail -n 1 <<<"$losses")"
miou=$(sed -n 's/^vitspec-metrics .*"mIoU": \([0-9.]*\).*/\1/p' "$WORK_DIR/test.log")
py=${PYTHON#"$ROOT"/}
echo
printf 'demo loss: %.2f at iteration %s -> %.2f at iteration %s\n' \
    "${first_loss:-nan}" "${first_iter:-?}" "${last_loss:-nan}" "${last_iter:-?}"
printf 'demo mIoU: %.2f (checkpoint %s)\n' "${miou:-nan}" "$CKPT"
cat <<EOF

Next:
  segment your own images with this checkpoint (label maps and overlays, docs/inference.md):
    $py tools/infer.py $CKPT path/to/your/images --out work_dirs/my-predictions
EOF
[ "$DEMO" = long ] || cat <<EOF
  the longer demo job (500 iterations on 128x128 images, about 9 minutes on 2 CPU cores):
    tools/demo.sh --long
EOF
cat <<EOF
  unpack ADEChallengeData2016.zip into data/ade/ and check its layout (other datasets are
  converted into the layout the configs read: tools/prepare_data.py --help):
    $py tools/prepare_data.py ade20k data/ade/ADEChallengeData2016
  check every file of it before a run (docs/running.md):
    $py tools/check_data.py $REAL
  train on it with 8 GPUs (a linear head on a frozen DINOv2 ViT-B/14; its weights:
  docs/reproduce.md; the number of GPUs and the batch: docs/running.md):
    tools/dist_train.sh $REAL 8
EOF
