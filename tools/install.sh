#!/usr/bin/env bash
# Idempotent set-up of the vitspec virtual environment: torch, torchvision and mmcv, then vitspec
# itself in editable mode with the extras test and tensorboard. No compiler is needed: mmcv is
# built from its source without its C++/CUDA ops (seconds, pure Python) and its ops run on
# vitspec's PyTorch / torchvision kernels (vitspec/mmcv_ops/kernels, installed as mmcv._ext).
#   tools/install.sh                  from the package registry (what CI and tools/demo.sh run)
#   tools/install.sh --mmcv-ops       mmcv with its compiled ops instead (about 30 minutes on 2
#       cores, an hour or more with CUDA; needs a C++ compiler, and nvcc for CUDA ops); combines
#       with --download / --offline. See docs/installation.md for when it is worth it.
#   tools/install.sh --download DIR [--python-version 3.12] [--platform manylinux_2_28_x86_64]
#                    [--no-torch] [--cuda 13.0|none]
#       on a connected machine: gathers into DIR every wheel the environment needs for that
#       Python and platform (default: this machine's), mmcv's source, and vitspec-offline.txt
#       (what, for which target); --no-torch leaves out torch and torchvision (the node has
#       them); --cuda adds the registry's nvcc packages of that CUDA version (with --mmcv-ops:
#       default 13.0, the pinned torch's; none with --no-torch; without --mmcv-ops: none). A
#       package with no wheel for the target is built into one when the target is this machine,
#       else named and refused.
#   tools/install.sh --offline DIR    on a node without network: installs from DIR alone (pip
#       --no-index, no configured index or find-links), keeps a torch 2.11 to 2.14 with its
#       torchvision that the venv already sees (a venv made with --system-site-packages; made
#       so here when VITSPEC_PYTHON imports such a torch), and builds mmcv from DIR's source.
#   VITSPEC_VENV   where the venv goes (default: ./.venv in the repo)
#   VITSPEC_PYTHON interpreter that creates it (default: python3)
# With --mmcv-ops:
#   VITSPEC_CUDA   1: build mmcv's CUDA ops without a visible GPU (a login node building for
#                  the GPU nodes); 0: CPU ops only; unset: CUDA ops when a GPU is visible
#   TORCH_CUDA_ARCH_LIST  GPU architectures of the CUDA ops (default: the visible GPUs', or
#                  8.0;9.0;10.0+PTX without one); CUDA_HOME  the CUDA toolkit to build with
# The mmcv 2.1.0 wheel is built once per machine and cached in
# ${XDG_CACHE_HOME:-$HOME/.cache}/vitspec/wheels: without compiled ops keyed by the content of
# vitspec/mmcv_ops/kernels; with them by mmcv, torch and Python version, and for CUDA ops also by
# CUDA version and architectures (tools/mmcv_wheel.py decides which).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VITSPEC_VENV:-$ROOT/.venv}"
PYTHON="${VITSPEC_PYTHON:-python3}"
# the kernels copied into the wheel without compiled ops as mmcv._ext (they import no vitspec)
MMCV_KERNELS="$ROOT/vitspec/mmcv_ops/kernels"
TORCH_VERSION=2.14.1
TORCHVISION_VERSION=0.29.1
MMCV_VERSION=2.1.0
# 80.9.0 still ships pkg_resources, which mmcv's setup.py imports.
SETUPTOOLS_VERSION=80.9.0
PINNED_TORCH_CUDA=13.0
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/vitspec/wheels"
MANIFEST=vitspec-offline.txt

say() { printf '[install] %s\n' "$*"; }
die() { printf '[install] ERROR: %s\n' "$*" >&2; exit 1; }

MODE=registry WHEELS='' TARGET_OPTS=() WITH_TORCH=1 CUDA_TOOLKIT='' COMPILED_OPS=0
while [ $# -gt 0 ]; do
    case "$1" in
        --download | --offline | --python-version | --platform | --cuda)
            [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value"
            case "$1" in
                --download | --offline) MODE="${1#--}" WHEELS="$2" ;;
                --cuda) CUDA_TOOLKIT="$2" ;;
                *) TARGET_OPTS+=("$1" "$2") ;;
            esac
            shift 2 ;;
        --no-torch) WITH_TORCH=0; shift ;;
        --mmcv-ops) COMPILED_OPS=1; shift ;;
        -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) die "unknown argument $1 (tools/install.sh --help)" ;;
    esac
done
if [ "$MODE" != download ] && { [ ${#TARGET_OPTS[@]} -gt 0 ] || [ "$WITH_TORCH" = 0 ] \
    || [ -n "$CUDA_TOOLKIT" ]; }; then
    die "--python-version, --platform, --no-torch and --cuda go with --download DIR"
fi

# --download DIR: the wheels of the whole environment for the target, mmcv's source, a manifest.
download_wheels() {
    local pip plan requires nvcc missing built=() resolved=0 attempt
    mkdir -p "$WHEELS" 2>/dev/null || die "cannot create the folder $WHEELS (is a part of its path a" \
        "file, or not writable?): give --download a folder that can be made"
    WHEELS="$(cd "$WHEELS" && pwd)"
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    # pip of a clean venv whose setuptools can run mmcv's setup.py (for its metadata)
    "$PYTHON" -m venv "$work/venv" || die "could not create a venv with $PYTHON"
    pip=("$work/venv/bin/python" -m pip --disable-pip-version-check)
    "${pip[@]}" install -q "setuptools==$SETUPTOOLS_VERSION" wheel || die "pip could not install setuptools"
    plan="$("$work/venv/bin/python" "$ROOT/tools/offline_wheels.py" target "${TARGET_OPTS[@]}")" \
        || die "no target to download for (above)"
    eval "$plan"
    say "gathering wheels for Python $TARGET_PYTHON on $TARGET_PLATFORM into $WHEELS"

    "${pip[@]}" download --no-deps --no-binary :all: --no-build-isolation "mmcv==$MMCV_VERSION" \
        -d "$WHEELS" || die "could not download the mmcv $MMCV_VERSION source package"
    # what the wheel built from it requires (the default section of its requires.txt)
    requires="$(tar -xzOf "$WHEELS/mmcv-$MMCV_VERSION.tar.gz" \
        "mmcv-$MMCV_VERSION/mmcv.egg-info/requires.txt" | sed -e '/^\[/,$d' -e '/^\s*$/d')" \
        || die "mmcv-$MMCV_VERSION.tar.gz has no mmcv.egg-info/requires.txt"
    # shellcheck disable=SC2206  # one requirement per word
    local reqs=("setuptools==$SETUPTOOLS_VERSION" wheel $requires "$ROOT[test,tensorboard]")
    local stubs=()
    [ "$COMPILED_OPS" = 0 ] || reqs+=(ninja)
    if [ "$WITH_TORCH" = 1 ]; then
        reqs+=("torch==$TORCH_VERSION" "torchvision==$TORCHVISION_VERSION")
        [ "$COMPILED_OPS" = 0 ] || CUDA_TOOLKIT="${CUDA_TOOLKIT:-$PINNED_TORCH_CUDA}"
    else
        # the node's torch: empty stand-ins for pip (timm requires torch), removed from DIR after
        mkdir "$work/stubs"
        "$work/venv/bin/python" "$ROOT/tools/offline_wheels.py" stub-wheel "$work/stubs" torch \
            "$TORCH_VERSION+node" >/dev/null
        "$work/venv/bin/python" "$ROOT/tools/offline_wheels.py" stub-wheel "$work/stubs" \
            torchvision "$TORCHVISION_VERSION+node" >/dev/null
        reqs+=("torch==$TORCH_VERSION+node" "torchvision==$TORCHVISION_VERSION+node")
        stubs=(--find-links "$work/stubs")
    fi
    if [ -n "$CUDA_TOOLKIT" ] && [ "$CUDA_TOOLKIT" != none ]; then
        nvcc="$("$work/venv/bin/python" "$ROOT/tools/mmcv_wheel.py" nvcc-packages "$CUDA_TOOLKIT")" \
            || die "no registry nvcc packages for CUDA $CUDA_TOOLKIT"
        local known
        known="$("${pip[@]}" index versions nvidia-cuda-nvcc 2>/dev/null \
            | sed -n 's/^Available versions: //p' | tr ',' '\n' \
            | sed -nE 's/^ *([0-9]+\.[0-9]+)\..*/\1/p' | sort -uV | tr '\n' ' ')"
        case " $known " in
            *" $CUDA_TOOLKIT "*) ;;
            *) die "--cuda $CUDA_TOOLKIT: the registry has no nvcc packages of that CUDA version" \
                "(it has: ${known:-none it could list}); give one of those, or --cuda none" ;;
        esac
        # shellcheck disable=SC2206
        reqs+=($nvcc)
    fi

    # Wheels only; a package with only a source is built into a wheel in DIR when the target is
    # this machine, and named otherwise.
    for attempt in 1 2 3 4 5 6 7 8; do
        if "${pip[@]}" download --only-binary=:all: "${TARGET_ARGS[@]}" --no-build-isolation \
            --find-links "$WHEELS" "${stubs[@]}" -d "$WHEELS" "${reqs[@]}" >"$work/log" 2>&1; then
            resolved=1
            break
        fi
        missing="$(grep -oP 'No matching distribution found for \K\S+' "$work/log" | head -n1 || true)"
        [ -n "$missing" ] || { cat "$work/log"; die "pip could not download the environment (above)"; }
        [ "$TARGET_NATIVE" = 1 ] || die "$missing has no wheel for Python $TARGET_PYTHON on" \
            "$TARGET_PLATFORM (the registry has only its source, or nothing for that target): run" \
            "--download on a machine of that Python and platform, where it is built into a wheel"
        say "$missing has no wheel for this machine: building one from its source"
        "${pip[@]}" wheel --no-deps -w "$WHEELS" "$missing" || die "could not build a wheel of $missing"
        built+=("$missing")
    done
    [ "$resolved" = 1 ] || die "pip download still fails after building ${built[*]}"
    # (pip install --dry-run would check Requires-Python against this Python, not the target's)
    say "checking that $WHEELS alone resolves everything (pip --no-index)"
    "${pip[@]}" download --no-index --only-binary=:all: "${TARGET_ARGS[@]}" --no-build-isolation \
        --find-links "$WHEELS" "${stubs[@]}" -d "$WHEELS" "${reqs[@]}" >"$work/log" 2>&1 \
        || { cat "$work/log"; die "$WHEELS is incomplete for an offline install (above)"; }
    rm -f "$WHEELS"/torch-*+node-*.whl "$WHEELS"/torchvision-*+node-*.whl
    {
        echo "# tools/install.sh --offline DIR installs vitspec from this folder alone"
        echo "python_version=$TARGET_PYTHON"
        echo "platform=$TARGET_PLATFORM"
        if [ "$WITH_TORCH" = 1 ]; then
            echo "torch=$TORCH_VERSION torchvision $TORCHVISION_VERSION"
        else
            echo "torch=none (the node's torch is kept)"
        fi
        echo "cuda_toolkit=${CUDA_TOOLKIT:-none}"
        echo "mmcv_ops=$([ "$COMPILED_OPS" = 1 ] && echo compiled || echo torchvision)"
        echo "mmcv_source=mmcv-$MMCV_VERSION.tar.gz"
        echo "built_from_source=${built[*]}"
        echo "vitspec=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
        echo "created=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    } >"$WHEELS/$MANIFEST"
    say "done: $(ls "$WHEELS"/*.whl | wc -l) wheels and mmcv's source in $WHEELS ($(du -sh "$WHEELS" | cut -f1));" \
        "on the node: tools/install.sh --offline $WHEELS"
}
if [ "$MODE" = download ]; then
    download_wheels
    exit 0
fi

if [ "$MODE" = offline ]; then
    [ -f "$WHEELS/$MANIFEST" ] || die "$WHEELS has no $MANIFEST: fill it on a connected machine" \
        "with tools/install.sh --download $WHEELS"
    WHEELS="$(cd "$WHEELS" && pwd)"
    # pip reads this folder and nothing else: no index, no configured index or find-links
    export PIP_NO_INDEX=1 PIP_CONFIG_FILE=/dev/null
    unset PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS
fi
manifest_value() { sed -n "s/^$1=//p" "$WHEELS/$MANIFEST"; }
# --offline keeps a torch the venv already sees when offline_wheels.py accepts it; its version,
# not the pin, then keys the mmcv wheel.
REUSED_TORCH=''
reuse_torch() {
    [ "$MODE" = offline ] && [ -x "$1" ] || return 1
    REUSED_TORCH="$("$1" "$ROOT/tools/offline_wheels.py" reusable-torch)" || return 1
    TORCH_VERSION="$REUSED_TORCH"
}
reuse_torch "$VENV/bin/python" 2>/dev/null || true

# A stamp of everything that decides the environment: when it matches and the imports
# pass, the environment is complete and nothing is reinstalled.
STAMP_SRC="$(cat "$ROOT/tools/install.sh" "$ROOT/tools/mmcv_wheel.py" \
    "$ROOT/tools/offline_wheels.py" "$ROOT/pyproject.toml"; echo "compiled ops: $COMPILED_OPS")"
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
from mmcv.ops import get_compiler_version
ops = 'torchvision ops' if get_compiler_version().startswith('none') else 'compiled ops'
print(f'[install] ok: torch {torch.__version__}, mmcv {mmcv.__version__} ({ops}), '
      f'mmseg {mmseg.__version__}, mmdet {mmdet.__version__}')
PY
}

# The mmcv wheel this machine needs: sets MMCV_VARIANT (cpu | cuda) and WHEEL_DIR, for CUDA also
# MMCV_CUDA_VERSION, TORCH_CUDA_ARCH_LIST and NVCC_PACKAGES. WHEEL_DIR is part of the stamp, so
# a venv set up with CPU ops (a login node) is not up to date where CUDA ops are expected.
plan_wheel() {
    local plan variant=()
    [ "$COMPILED_OPS" = 1 ] || variant=(--kernels "$MMCV_KERNELS")
    plan="$("$VENV/bin/python" "$ROOT/tools/mmcv_wheel.py" plan --cache "$CACHE" \
        --mmcv "$MMCV_VERSION" --torch "$TORCH_VERSION" "${variant[@]}")" || return 1
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
    "${PIP[@]}" $NVCC_PACKAGES >&2 || die "pip could not install $NVCC_PACKAGES" \
        "${WHEELS:+(offline: add them with --download --cuda $MMCV_CUDA_VERSION, or set CUDA_HOME)}"
    "$VENV/bin/python" "$ROOT/tools/mmcv_wheel.py" cuda-home \
        || die "no usable nvcc after installing $NVCC_PACKAGES"
}

if [ -f "$STAMP" ] && plan_wheel 2>/dev/null && [ "$(cat "$STAMP")" = "$STAMP_HASH $WHEEL_DIR" ] \
    && check_imports 2>/dev/null; then
    say "environment at $VENV is up to date"
    exit 0
fi

if [ ! -x "$VENV/bin/python" ]; then
    venv_opts=()
    if [ "$MODE" = offline ] && node_torch="$("$PYTHON" "$ROOT/tools/offline_wheels.py" reusable-torch 2>/dev/null)"; then
        say "$PYTHON has torch $node_torch: the venv sees its packages (--system-site-packages)"
        venv_opts=(--system-site-packages)
    fi
    say "creating virtual environment at $VENV"
    "$PYTHON" -m venv "${venv_opts[@]}" "$VENV" || die "could not create a venv with $PYTHON"
fi
PIP=("$VENV/bin/python" -m pip install --disable-pip-version-check --progress-bar off)
if [ "$MODE" = offline ]; then
    PIP+=(--no-index --find-links "$WHEELS")
    venv_python="$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
    [ "$venv_python" = "$(manifest_value python_version)" ] || die "$WHEELS holds wheels for" \
        "Python $(manifest_value python_version), the venv's is $venv_python: download with" \
        "--python-version $venv_python"
fi

build_tools=("setuptools==$SETUPTOOLS_VERSION" wheel)
[ "$COMPILED_OPS" = 0 ] || build_tools+=(ninja)
"${PIP[@]}" "${build_tools[@]}" || die "pip could not install build tools"
[ -n "$REUSED_TORCH" ] || reuse_torch "$VENV/bin/python" || true
if [ -n "$REUSED_TORCH" ]; then
    say "keeping torch $REUSED_TORCH, which the venv already sees"
else
    "${PIP[@]}" "torch==$TORCH_VERSION" "torchvision==$TORCHVISION_VERSION" \
        || die "pip could not install torch $TORCH_VERSION / torchvision $TORCHVISION_VERSION" \
            "${WHEELS:+(offline: $WHEELS has torch $(manifest_value torch); a torch 2.11 to 2.14 with torchvision in the venv is kept)}"
fi

plan_wheel || die "could not decide which mmcv wheel this machine needs (see above)"
wheel="$(ls "$WHEEL_DIR"/mmcv-"$MMCV_VERSION"-*.whl 2>/dev/null | head -n1 || true)"
if [ -z "$wheel" ]; then
    build="$(mktemp -d)"
    trap 'rm -rf "$build"' EXIT
    if [ "$MODE" = offline ]; then
        cp "$WHEELS/mmcv-$MMCV_VERSION.tar.gz" "$build/" \
            || die "$WHEELS has no mmcv $MMCV_VERSION source package"
    else
        "$VENV/bin/python" -m pip download --no-deps --no-binary :all: "mmcv==$MMCV_VERSION" -d "$build" \
            || die "could not download the mmcv $MMCV_VERSION source package"
    fi
    tar -xzf "$build"/mmcv-"$MMCV_VERSION".tar.gz -C "$build"
    src="$build/mmcv-$MMCV_VERSION"
    # torch 2.14's headers need C++20; mmcv 2.1.0 hard-codes C++14/17.
    sed -i -e 's/-std=c++14/-std=c++20/g' -e 's/-std=c++17/-std=c++20/g' "$src/setup.py"
    grep -q -- '-std=c++20' "$src/setup.py" || die "mmcv setup.py no longer has the -std flag to patch"
    build_env=(MMCV_WITH_OPS=1 MAX_JOBS="${MAX_JOBS:-2}")
    if [ "$MMCV_VARIANT" = torchvision ]; then
        # mmcv's Python without its compiled ops, under its own name (mmdet and mmseg require
        # 'mmcv'; without ops setup.py calls it mmcv-lite), with vitspec's kernels as mmcv._ext
        sed -i "s/name='mmcv' if os.getenv('MMCV_WITH_OPS', '1') == '1' else 'mmcv-lite'/name='mmcv'/" \
            "$src/setup.py"
        grep -q "^    name='mmcv',$" "$src/setup.py" || die "mmcv setup.py no longer has the name to patch"
        cp -r "$MMCV_KERNELS" "$src/mmcv/_ext"
        rm -rf "$src/mmcv/_ext/__pycache__"
        build_env=(MMCV_WITH_OPS=0)
        say "building mmcv $MMCV_VERSION without compiled ops, its ops on PyTorch / torchvision" \
            "(about a minute)"
    elif [ "$MMCV_VARIANT" = cuda ]; then
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
# the other build of the same version would count as installed
"$VENV/bin/python" -m pip uninstall -y -q mmcv mmcv-lite 2>/dev/null || true
"${PIP[@]}" "$wheel" || die "could not install $wheel"
# vitspec (editable) with the dependencies and extras declared in pyproject.toml; torch,
# torchvision and mmcv are not declared there: they are the ones installed above.
"${PIP[@]}" --no-build-isolation -e "$ROOT[test,tensorboard]" \
    || die "pip could not install vitspec with its dependencies (pyproject.toml)"

check_imports || die "the environment is incomplete (imports above)"
printf '%s' "$STAMP_HASH $WHEEL_DIR" > "$STAMP"
say "done: activate with 'source $VENV/bin/activate'"
