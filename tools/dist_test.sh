#!/usr/bin/env bash
# tools/dist_test.sh CONFIG CHECKPOINT NUM_GPUS [test.py args]
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 CONFIG CHECKPOINT NUM_GPUS [args]" >&2; exit 2; }
CONFIG=$1
CHECKPOINT=$2
GPUS=$3
_positive() {  # name value: a count of processes must be a whole number >= 1
    [[ "$2" =~ ^[1-9][0-9]*$ ]] || {
        echo "$0: $1 must be a whole number of processes >= 1 (one per GPU; without CUDA, CPU processes), got '$2'" >&2
        exit 2
    }
}
_positive NUM_GPUS "$GPUS"
source "$(dirname "${BASH_SOURCE[0]}")/_python.sh"
exec "$PYTHON" -m torch.distributed.run \
    --nnodes="${NNODES:-1}" --node_rank="${NODE_RANK:-0}" \
    --master_addr="${MASTER_ADDR:-127.0.0.1}" --master_port="${PORT:-29500}" \
    --nproc_per_node="$GPUS" \
    "$(dirname "${BASH_SOURCE[0]}")/test.py" "$CONFIG" "$CHECKPOINT" --launcher pytorch "${@:4}"
