#!/usr/bin/env bash
# Lint, then the test suite, setting up the environment first if needed:
#   tools/run_tests.sh [pytest args]      e.g. -m "not slow" for the fast subset
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/tools/install.sh"
source "$ROOT/tools/_python.sh"
cd "$ROOT"
"$PYTHON" -m ruff check .
"$PYTHON" -m ruff format --check .
exec "$PYTHON" -m pytest "$@"
