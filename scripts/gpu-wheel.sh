#!/usr/bin/env bash
# gpu-wheel.sh — the wheel of `make wheel` installed in a fresh virtual
# environment on the GPU machine, its examples checked against PyTorch and
# `tile profile` run on one of them, in one command.
#
#   scripts/gpu-wheel.sh prepare   HERE: make wheel (build-wheel/dist/tile-*.whl,
#                                  about 20 MiB) and print the device call
#   scripts/gpu-wheel.sh [run]     THERE, carrying build-wheel/dist:
#     1. a new virtual environment (python3 -m venv) that also sees the
#        machine's site-packages (a .pth file: that machine has no network,
#        so numpy, torch and pip come from there); `tile` is not among them
#        (checked) and comes from the wheel alone (pip install --no-index
#        --no-deps), with TILEC, TILE_LIBDIR, TILE_STDLIB and PYTHONPATH unset;
#     2. `tile info` and the `tilec` command from the venv's bin/: the
#        package's own libraries, compiler and stdlib;
#     3. scripts/wheel_examples.py: every example compiled for the device's
#        architecture by the installed package and checked against PyTorch
#        (softmax also in the interpreter);
#     4. the tile.torch training test (examples/torch/mlp_train.py, bf16
#        then f32, or the dtypes TRAIN_DTYPES lists; torch.compile's
#        reduce-overhead mode): its kernels compiled by the installed
#        package, 100 steps against PyTorch;
#     5. where Nsight Compute is (as `tile profile` finds it: $NCU, PATH,
#        /usr/local/cuda/bin, /opt/nvidia/nsight-compute/*):
#        `tile profile examples/softmax.py`, and the report's source page
#        as CSV (the recorded page python/tests/test_profile.py reads).
#
# Device call, after prepare:
#   run(command="scripts/gpu-wheel.sh run", carry=["build-wheel/dist"], kind="nvidia-h200", timeout_s=600)
# `run` writes $OUT/wheel.txt (all it printed, the training table too),
# $OUT/profile.txt and
# $OUT/ncu-softmax-source.csv (OUT: default build-wheel/out). Exit status 0
# when the install, the examples, the training test and the profile (where
# ncu is) succeeded.
set -u
cd "$(dirname "$0")/.."
top=$PWD

prepare() {
    set -e
    make wheel
    ls -la build-wheel/dist/
    echo "device call:"
    echo "  run(command=\"scripts/gpu-wheel.sh run\", carry=[\"build-wheel/dist\"], kind=\"nvidia-h200\", timeout_s=600)"
}

# step NAME COMMAND...: runs one step, prints its time and status; a
# failure counts but does not stop the next steps.
failed=0
step() {
    local name=$1 t0=$SECONDS
    shift
    echo "=== $name"
    "$@"
    local rc=$?
    echo "=== $name: exit $rc, $((SECONDS - t0)) s"
    [ "$rc" -eq 0 ] || failed=$((failed + 1))
    return "$rc"
}

install() {
    local whl
    whl=$(ls "$top"/build-wheel/dist/tile-*.whl 2>/dev/null | head -1)
    [ -n "$whl" ] || { echo "no wheel in build-wheel/dist: run 'scripts/gpu-wheel.sh prepare' here and carry build-wheel/dist"; return 2; }
    echo "$(basename "$whl"): $(du -m "$whl" | cut -f1) MiB; glibc $(ldd --version | head -1 | awk '{print $NF}')"
    rm -rf "$venv"
    # The machine's python3 may itself be a virtual environment (torch's),
    # whose packages a venv made from it does not see: a .pth file in the
    # new venv lists that python's site-packages after the venv's own.
    python3 -m venv --without-pip "$venv" || return 1
    python3 -c 'import site; print("\n".join(site.getsitepackages()))' \
        > "$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/machine-site.pth"
    if (cd /tmp && "$venv/bin/python" -c 'import tile' 2>/dev/null); then
        echo "the system's Python already has a tile package: the check would prove nothing"
        return 1
    fi
    "$venv/bin/python" -m pip install -q --no-index --no-deps --no-cache-dir "$whl" &&
        "$venv/bin/python" -m pip show tile | grep -E "^(Name|Version|Location):"
}

profile() {
    local ncu
    ncu=$("$venv/bin/python" -c 'from tile.profile import find_ncu; print(find_ncu() or "")')
    if [ -z "$ncu" ]; then
        echo "no ncu here: tile profile not run"
        return 0
    fi
    "$ncu" --version | tail -1
    (cd /tmp && "$venv/bin/tile" profile -o /tmp/tile-wheel/softmax.ncu-rep \
        "$top/examples/softmax.py" 4096 3000) 2>&1 | tee "$OUT/profile.txt"
    local rc=${PIPESTATUS[0]}
    "$ncu" --import /tmp/tile-wheel/softmax.ncu-rep --page source --csv --print-source cuda,sass \
        > "$OUT/ncu-softmax-source.csv"
    return "$rc"
}

run() {
    OUT=${OUT:-$top/build-wheel/out}
    mkdir -p "$OUT" /tmp/tile-wheel
    venv=/tmp/tile-wheel/venv
    unset TILEC TILE_LIBDIR TILE_STDLIB TILE_PATH PYTHONPATH TILE_INTERPRET
    export TILE_CACHE_DIR=/tmp/tile-wheel/cache PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
    {
        step install install || exit 1
        step "tile info" sh -c "cd /tmp && '$venv/bin/tile' info && '$venv/bin/tilec' --version &&
            '$venv/bin/python' -c 'from tile import _cache; print(\"packaged ptxas:\", _cache.packaged_ptxas())' &&
            for p in \$('$venv/bin/python' -c 'from tile import _cache; print(_cache.packaged_ptxas() or \"\")'); do \"\$p\" --version | tail -1; done"
        step examples sh -c "cd /tmp && '$venv/bin/python' '$top/scripts/wheel_examples.py' '$top/examples'"
        for dt in ${TRAIN_DTYPES:-bf16 f32}; do
            step "training $dt" sh -c "cd /tmp && TILE_VERBOSE=1 '$venv/bin/python' \
                '$top/examples/torch/mlp_train.py' --device cuda --dtype $dt \
                --compile-mode reduce-overhead"
        done
        step profile profile
        echo "gpu-wheel: $failed step(s) failed"
    } 2>&1 | tee "$OUT/wheel.txt"
    grep -q "^gpu-wheel: 0 step(s) failed" "$OUT/wheel.txt"
}

case ${1:-run} in
prepare) prepare ;;
run) run ;;
*) echo "usage: scripts/gpu-wheel.sh [prepare|run]" >&2; exit 2 ;;
esac
