#!/usr/bin/env bash
# tools/slurm_train.sh PARTITION JOB_NAME CONFIG [train.py args]
# Env: GPUS (8), GPUS_PER_NODE (8), CPUS_PER_TASK (5), SRUN_ARGS.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 PARTITION JOB_NAME CONFIG [args]" >&2; exit 2; }
PARTITION=$1
JOB_NAME=$2
CONFIG=$3
GPUS=${GPUS:-8}
GPUS_PER_NODE=${GPUS_PER_NODE:-8}
CPUS_PER_TASK=${CPUS_PER_TASK:-5}
_positive() {  # name value: a count of processes must be a whole number >= 1
    [[ "$2" =~ ^[1-9][0-9]*$ ]] || {
        echo "$0: $1 must be a whole number of processes >= 1 (one per GPU; without CUDA, CPU processes), got '$2'" >&2
        exit 2
    }
}
_positive GPUS "$GPUS"
_positive GPUS_PER_NODE "$GPUS_PER_NODE"
source "$(dirname "${BASH_SOURCE[0]}")/_python.sh"
srun -p "$PARTITION" --job-name="$JOB_NAME" \
    --gres=gpu:"$GPUS_PER_NODE" --ntasks="$GPUS" --ntasks-per-node="$GPUS_PER_NODE" \
    --cpus-per-task="$CPUS_PER_TASK" --kill-on-bad-exit=1 ${SRUN_ARGS:-} \
    "$PYTHON" -u "$(dirname "${BASH_SOURCE[0]}")/train.py" "$CONFIG" --launcher slurm "${@:4}"
