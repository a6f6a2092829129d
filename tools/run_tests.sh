#!/usr/bin/env bash
# The whole test suite, setting up the environment first if needed: tools/run_tests.sh [pytest args]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/tools/install.sh"
source "$ROOT/tools/_python.sh"
cd "$ROOT"
exec "$PYTHON" -m pytest "$@"
