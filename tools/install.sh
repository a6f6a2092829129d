#!/usr/bin/env bash
# Idempotent set-up of the vitspec virtual environment: torch, torchvision and mmcv (with its
# compiled ops), then vitspec itself in editable mode with the extras test and tensorboard.
#   VITSPEC_VENV   where the venv goes (default: ./.venv in the repo)
#   VITSPEC_PYTHON interpreter that creates it (default: python3)
# The mmcv 2.1.0 wheel (compiled CPU ops) is built once per machine and cached in
# ${XDG_CACHE_HOME:-$HOME/.cache}/vitspec/wheels, keyed by mmcv, torch and Python version.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VITSPEC_VENV:-$ROOT/.venv}"
PYTHON="${VITSPEC_PYTHON:-python3}"
TORCH_VERSION=2.14.1
TORCHVISION_VERSION=0.29.1
MMCV_VERSION=2.1.0
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/vitspec/wheels"

say() { printf '[install] %s\n' "$*"; }
die() { printf '[install] ERROR: %s\n' "$*" >&2; exit 1; }

# A stamp of everything that decides the environment: when it matches and the imports
# pass, the environment is complete and nothing is reinstalled.
STAMP_SRC="$(cat "$ROOT/tools/install.sh" "$ROOT/pyproject.toml")"
STAMP_HASH="$(printf '%s' "$STAMP_SRC" | sha256sum | cut -d' ' -f1)"
STAMP="$VENV/.vitspec-install-stamp"

check_imports() {
    "$VENV/bin/python" - <<'PY'
import importlib, sys
failed = []
for name in ('torch', 'torchvision', 'timm', 'mmengine', 'mmcv.ops', 'mmseg.models',
             'mmdet.models', 'vitspec'):
    try:
        importlib.import_module(name)
    except Exception as exc:  # report every failure, not only the first
        failed.append(f'{name}: {type(exc).__name__}: {exc}')
if failed:
    print('[install] these imports failed:', *failed, sep='\n  ', file=sys.stderr)
    sys.exit(1)
import torch, mmcv, mmseg, mmdet
print(f'[install] ok: torch {torch.__version__}, mmcv {mmcv.__version__} (ops), '
      f'mmseg {mmseg.__version__}, mmdet {mmdet.__version__}')
PY
}

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$STAMP_HASH" ] && check_imports 2>/dev/null; then
    say "environment at $VENV is up to date"
    exit 0
fi

if [ ! -x "$VENV/bin/python" ]; then
    say "creating virtual environment at $VENV"
    "$PYTHON" -m venv "$VENV" || die "could not create a venv with $PYTHON"
fi
PIP=("$VENV/bin/python" -m pip install --disable-pip-version-check --progress-bar off)

# setuptools 80.9.0 still ships pkg_resources, which mmcv's setup.py imports.
"${PIP[@]}" "setuptools==80.9.0" wheel ninja || die "pip could not install build tools"
"${PIP[@]}" "torch==$TORCH_VERSION" "torchvision==$TORCHVISION_VERSION" \
    || die "pip could not install torch $TORCH_VERSION / torchvision $TORCHVISION_VERSION"

PYTAG="$("$VENV/bin/python" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')"
WHEEL_DIR="$CACHE/mmcv-$MMCV_VERSION-torch$TORCH_VERSION-$PYTAG"
wheel="$(ls "$WHEEL_DIR"/mmcv-"$MMCV_VERSION"-*.whl 2>/dev/null | head -n1 || true)"
if [ -z "$wheel" ]; then
    say "building mmcv $MMCV_VERSION with compiled ops (about 30 minutes on 2 cores, once per machine)"
    build="$(mktemp -d)"
    trap 'rm -rf "$build"' EXIT
    "$VENV/bin/python" -m pip download --no-deps --no-binary :all: "mmcv==$MMCV_VERSION" -d "$build" \
        || die "could not download the mmcv $MMCV_VERSION source package"
    tar -xzf "$build"/mmcv-"$MMCV_VERSION".tar.gz -C "$build"
    src="$build/mmcv-$MMCV_VERSION"
    # torch 2.14's headers need C++20; mmcv 2.1.0 hard-codes C++14/17.
    sed -i -e 's/-std=c++14/-std=c++20/g' -e 's/-std=c++17/-std=c++20/g' "$src/setup.py"
    grep -q -- '-std=c++20' "$src/setup.py" || die "mmcv setup.py no longer has the -std flag to patch"
    (cd "$src" && MMCV_WITH_OPS=1 MAX_JOBS="${MAX_JOBS:-2}" "$VENV/bin/python" -m pip wheel \
        --no-build-isolation --no-deps -w "$build/dist" .) || die "the mmcv build failed (see above)"
    mkdir -p "$WHEEL_DIR"
    built="$(ls "$build"/dist/mmcv-*.whl)"
    # copy then rename, so an interrupted copy never looks like a cached wheel
    cp "$built" "$WHEEL_DIR/.partial" && mv "$WHEEL_DIR/.partial" "$WHEEL_DIR/$(basename "$built")"
    wheel="$WHEEL_DIR/$(basename "$built")"
    say "cached $wheel"
fi
"${PIP[@]}" "$wheel" || die "could not install $wheel"
# vitspec (editable) with the dependencies and extras declared in pyproject.toml; torch,
# torchvision and mmcv are not declared there: they are the ones installed above.
"${PIP[@]}" --no-build-isolation -e "$ROOT[test,tensorboard]" \
    || die "pip could not install vitspec with its dependencies (pyproject.toml)"

check_imports || die "the environment is incomplete (imports above)"
printf '%s' "$STAMP_HASH" > "$STAMP"
say "done: activate with 'source $VENV/bin/activate'"
