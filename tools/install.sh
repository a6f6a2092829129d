#!/usr/bin/env bash
# Idempotent set-up of the vitspec virtual environment: torch, torchvision and mmcv (with its
# compiled ops), then vitspec itself in editable mode with the extras test and tensorboard.
#   VITSPEC_VENV   where the venv goes (default: ./.venv in the repo)
#   VITSPEC_PYTHON interpreter that creates it (default: python3)
#   VITSPEC_CUDA   1: build mmcv's CUDA ops without a visible GPU (a login node building for
#                  the GPU nodes); 0: CPU ops only; unset: CUDA ops when a GPU is visible
#   TORCH_CUDA_ARCH_LIST  GPU architectures of the CUDA ops (default: the visible GPUs', or
#                  8.0;9.0;10.0+PTX without one); CUDA_HOME  the CUDA toolkit to build with
# The mmcv 2.1.0 wheel is built once per machine and cached in
# ${XDG_CACHE_HOME:-$HOME/.cache}/vitspec/wheels, keyed by mmcv, torch and Python version, and
# for CUDA ops also by CUDA version and architectures (tools/mmcv_wheel.py decides which).
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
STAMP_SRC="$(cat "$ROOT/tools/install.sh" "$ROOT/tools/mmcv_wheel.py" "$ROOT/pyproject.toml")"
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

# The mmcv wheel this machine needs: sets MMCV_VARIANT (cpu | cuda) and WHEEL_DIR, for CUDA also
# MMCV_CUDA_VERSION, TORCH_CUDA_ARCH_LIST and NVCC_PACKAGES. WHEEL_DIR is part of the stamp, so
# a venv set up with CPU ops (a login node) is not up to date where CUDA ops are expected.
plan_wheel() {
    local plan
    plan="$("$VENV/bin/python" "$ROOT/tools/mmcv_wheel.py" plan --cache "$CACHE" \
        --mmcv "$MMCV_VERSION" --torch "$TORCH_VERSION")" || return 1
    eval "$plan"
}
check_wheel() {
    "$VENV/bin/python" "$ROOT/tools/mmcv_wheel.py" check "$1" --variant "$MMCV_VARIANT"
}

# A CUDA toolkit of torch's CUDA version (CUDA_HOME, nvcc on PATH, /usr/local/cuda*), else the
# registry's nvcc packages installed into the venv; prints its root.
cuda_toolkit() {
    local home
    if home="$("$VENV/bin/python" "$ROOT/tools/mmcv_wheel.py" cuda-home)"; then
        printf '%s' "$home"
        return
    fi
    say "no CUDA $MMCV_CUDA_VERSION toolkit found: installing $NVCC_PACKAGES into the venv" >&2
    # shellcheck disable=SC2086  # one package per word
    "${PIP[@]}" $NVCC_PACKAGES >&2 || die "pip could not install $NVCC_PACKAGES"
    "$VENV/bin/python" "$ROOT/tools/mmcv_wheel.py" cuda-home \
        || die "no usable nvcc after installing $NVCC_PACKAGES"
}

if [ -f "$STAMP" ] && plan_wheel 2>/dev/null && [ "$(cat "$STAMP")" = "$STAMP_HASH $WHEEL_DIR" ] \
    && check_imports 2>/dev/null; then
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

plan_wheel || die "could not decide which mmcv wheel this machine needs (see above)"
wheel="$(ls "$WHEEL_DIR"/mmcv-"$MMCV_VERSION"-*.whl 2>/dev/null | head -n1 || true)"
if [ -z "$wheel" ]; then
    build="$(mktemp -d)"
    trap 'rm -rf "$build"' EXIT
    "$VENV/bin/python" -m pip download --no-deps --no-binary :all: "mmcv==$MMCV_VERSION" -d "$build" \
        || die "could not download the mmcv $MMCV_VERSION source package"
    tar -xzf "$build"/mmcv-"$MMCV_VERSION".tar.gz -C "$build"
    src="$build/mmcv-$MMCV_VERSION"
    # torch 2.14's headers need C++20; mmcv 2.1.0 hard-codes C++14/17.
    sed -i -e 's/-std=c++14/-std=c++20/g' -e 's/-std=c++17/-std=c++20/g' "$src/setup.py"
    grep -q -- '-std=c++20' "$src/setup.py" || die "mmcv setup.py no longer has the -std flag to patch"
    build_env=(MMCV_WITH_OPS=1 MAX_JOBS="${MAX_JOBS:-2}")
    if [ "$MMCV_VARIANT" = cuda ]; then
        home="$(cuda_toolkit)"
        "$VENV/bin/python" "$ROOT/tools/mmcv_wheel.py" link-dir "$home" "$build/links"
        build_env+=(FORCE_CUDA=1 CUDA_HOME="$home" TORCH_CUDA_ARCH_LIST="$TORCH_CUDA_ARCH_LIST"
            LIBRARY_PATH="$build/links${LIBRARY_PATH:+:$LIBRARY_PATH}")
        say "building mmcv $MMCV_VERSION with CUDA $MMCV_CUDA_VERSION ops for $TORCH_CUDA_ARCH_LIST" \
            "(nvcc of $home; an hour or more on 2 cores, once per machine)"
    else
        # mmcv's setup.py builds CUDA ops whenever torch sees a GPU: not for the CPU wheel.
        build_env+=(FORCE_CUDA=0 CUDA_VISIBLE_DEVICES=)
        say "building mmcv $MMCV_VERSION with compiled CPU ops (about 30 minutes on 2 cores, once per machine)"
    fi
    (cd "$src" && env "${build_env[@]}" "$VENV/bin/python" -m pip wheel \
        --no-build-isolation --no-deps -w "$build/dist" .) || die "the mmcv build failed (see above)"
    built="$(ls "$build"/dist/mmcv-*.whl)"
    check_wheel "$built" || die "the mmcv build did not give $MMCV_VARIANT ops"
    mkdir -p "$WHEEL_DIR"
    # copy then rename, so an interrupted copy never looks like a cached wheel
    cp "$built" "$WHEEL_DIR/.partial" && mv "$WHEEL_DIR/.partial" "$WHEEL_DIR/$(basename "$built")"
    wheel="$WHEEL_DIR/$(basename "$built")"
    say "cached $wheel"
fi
# never a CPU-only wheel where CUDA ops are expected
check_wheel "$wheel" || die "$wheel is not the mmcv this machine needs"
"${PIP[@]}" "$wheel" || die "could not install $wheel"
# vitspec (editable) with the dependencies and extras declared in pyproject.toml; torch,
# torchvision and mmcv are not declared there: they are the ones installed above.
"${PIP[@]}" --no-build-isolation -e "$ROOT[test,tensorboard]" \
    || die "pip could not install vitspec with its dependencies (pyproject.toml)"

check_imports || die "the environment is incomplete (imports above)"
printf '%s' "$STAMP_HASH $WHEEL_DIR" > "$STAMP"
say "done: activate with 'source $VENV/bin/activate'"
