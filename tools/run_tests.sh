#!/usr/bin/env bash
# Lint, then the test suite, setting up the environment first if needed:
#   tools/run_tests.sh [pytest args]      e.g. -m "not slow" for the fast subset
# The tests run on every core (pytest-xdist, one worker a core, one torch thread a worker)
# unless the arguments choose (-n N, -n 0 for one process, -p no:xdist).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/tools/install.sh"
source "$ROOT/tools/_python.sh"
cd "$ROOT"
"$PYTHON" -m ruff check .
"$PYTHON" -m ruff format --check .
workers=(-n auto)
for arg in "$@"; do
    case "$arg" in -n | -n* | --numprocesses* | no:xdist) workers=() ;; esac
done
# a worker per core: each worker's torch on one thread, not every worker on every core
[ ${#workers[@]} -eq 0 ] || export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
exec "$PYTHON" -m pytest "${workers[@]}" "$@"
