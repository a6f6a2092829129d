# Sourced by the launchers: picks the interpreter. An active venv wins; otherwise the
# project's venv (VITSPEC_VENV or ./.venv) when it exists; otherwise python3 on PATH. vitspec
# itself comes from that environment (tools/install.sh installs it in editable mode).
_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -n "${VIRTUAL_ENV:-}" ]; then
    PYTHON="${PYTHON:-python}"
elif [ -x "${VITSPEC_VENV:-$_root/.venv}/bin/python" ]; then
    PYTHON="${PYTHON:-${VITSPEC_VENV:-$_root/.venv}/bin/python}"
else
    PYTHON="${PYTHON:-python3}"
fi
