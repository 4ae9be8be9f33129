#!/usr/bin/env bash
# gpu-python.sh — the Python binding on the GPU machine: the host time per
# launch beside Triton (bench/py_launch.py, ISSUE 5's target: at most half
# of Triton's), the package's tests (python/tests) and the tile.torch
# training test (examples/torch/mlp_train.py), in one command.
#
#   scripts/gpu-python.sh prepare   HERE: build-gpu/ (scripts/gpu-bench.sh
#                                   prepare, when it is not there yet) plus
#                                   the tests' helpers: build-gpu/bin/
#                                   write_vadd_bundle and fakecuda.so, and
#                                   with STATIC_TILEC=PATH a static tilec
#                                   (xz) so that tile.compile runs there, and
#                                   build-gpu/torch/: the training test's
#                                   bundles (mlp-f32.tlb, cross_entropy.tlb,
#                                   mlp-bf16.tlb, cross_entropy-bf16.tlb)
#   scripts/gpu-python.sh [run]     THERE, carrying build-gpu: py_launch.py
#                                   (3 rounds), then pytest over
#                                   python/tests/test_gpu.py (the interpreter's
#                                   tests need libtilec, built with LLVM: here),
#                                   then the training test (as `torch`)
#   scripts/gpu-python.sh torch     THERE: the training test alone: an MLP
#                                   block of Tile custom ops trained 100 steps
#                                   under eager and torch.compile against
#                                   PyTorch, CUDA-graph replay (needs torch);
#                                   f32, then bf16 with torch.compile's
#                                   reduce-overhead mode (CUDA graphs)
#   scripts/gpu-python.sh bundles DIR       HERE: only the training test's
#                                   bundles, xz-compressed, into DIR
#   scripts/gpu-python.sh unpack FROM TO    THERE: those bundles decompressed
#
# Device call, after prepare:
#   run(command="scripts/gpu-python.sh run", carry=["build-gpu"], kind="nvidia-h200", timeout_s=600)
# `run` writes $OUT/py_launch.txt, $OUT/pytest.log, $OUT/mlp_train.txt and
# $OUT/mlp_train_bf16.txt
# (OUT: default build-gpu/out); MLP_ARGS adds options to mlp_train.py
# (default size: large; e.g. MLP_ARGS="--size small --steps 20"). Exit status: 0 when the benchmark's results were right
# and the tests passed (the 0.5 target is reported, not enforced).
set -u
cd "$(dirname "$0")/.."
top=$PWD
build=$top/build-gpu
. scripts/gpu-step.sh

prepare() {
    set -e
    [ -f "$build/libtile.so" ] && [ -f "$build/examples/vadd.tlb" ] || scripts/gpu-bench.sh prepare
    make -j2 python/tests/write_vadd_bundle tests/unit/fakecuda.so
    mkdir -p "$build/bin"
    cp python/tests/write_vadd_bundle tests/unit/fakecuda.so "$build/bin/"
    # The tests that compile kernels (tile.compile) need a tilec that runs
    # without LLVM there: STATIC_TILEC=path/to/tilec built with
    # --enable-static-llvm, carried xz-compressed (about a quarter the size).
    if [ -n "${STATIC_TILEC:-}" ]; then
        strip -o "$build/bin/tilec" "$STATIC_TILEC"
        xz -f -T2 "$build/bin/tilec"
    fi
    torch_bundles "$build/torch"
    echo "device call:"
    echo "  run(command=\"scripts/gpu-python.sh run\", carry=[\"build-gpu\"], kind=\"nvidia-h200\", timeout_s=600)"
}

# torch_bundles DIR: the training test's kernels, f32 and bf16, for the
# GPU's architecture, carried xz-compressed (mlp-f32.tlb is 66 MiB, 5 MiB
# compressed; mlp-bf16.tlb 35 and 2; about 8 minutes of tilec for all four
# on a 2-core machine): DIR/mlp-f32.tlb.xz,
# DIR/cross_entropy.tlb.xz, DIR/mlp-bf16.tlb.xz, DIR/cross_entropy-bf16.tlb.xz.
# Each: the bundle's name, then tilec's source and options.
TORCH_BUNDLES=("mlp-f32 examples/torch/mlp.tile -DT=f32"
               "cross_entropy examples/cross_entropy.tile"
               "mlp-bf16 examples/torch/mlp.tile -DT=bf16"
               "cross_entropy-bf16 examples/cross_entropy.tile -DT=bf16")
torch_bundles() {
    mkdir -p "$1"
    for b in "${TORCH_BUNDLES[@]}"; do
        set -- "$1" $b
        [ -f "$1/$2.tlb.xz" ] && continue
        ./tilec --arch="${GPU_ARCH:-sm_90a}" "${@:3}" -o "$1/$2.tlb" || return 1
        xz -f -T2 "$1/$2.tlb"
    done
}

# unpack_bundles FROM TO: the bundles torch_bundles made, decompressed.
unpack_bundles() {
    mkdir -p "$2"
    for b in "${TORCH_BUNDLES[@]}"; do
        b=${b%% *}
        xz -dc "$1/$b.tlb.xz" > "$2/$b.tlb" || return 1
    done
}

# there FILE: checks that prepare made FILE (under build-gpu/), then sets
# up $OUT and the environment both commands run Python in. 2 when not.
there() {
    prepared "$build" scripts/gpu-python.sh libtile.so "$1"
}

run() {
    there bin/write_vadd_bundle || exit 2
    if [ -f "$build/bin/tilec.xz" ]; then
        xz -dc "$build/bin/tilec.xz" > /tmp/tilec-static && chmod +x /tmp/tilec-static &&
            export TILEC=/tmp/tilec-static
    fi
    local status=0
    python3 bench/py_launch.py "$build/examples/vadd.tlb" 2>&1 | tee "$OUT/py_launch.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    grep -q "WRONG RESULT" "$OUT/py_launch.txt" && status=1
    if python3 -c 'import numpy, pytest' 2> /dev/null; then
        TILE_TEST_BUNDLE_WRITER=$build/bin/write_vadd_bundle \
        TILE_TEST_FAKE_CUDA=$build/bin/fakecuda.so TILE_STDLIB=$top/stdlib \
            python3 -m pytest -q -p no:cacheprovider -rs --rootdir=python python/tests/test_gpu.py \
            > "$OUT/pytest.log" 2>&1 || status=1
        tail -15 "$OUT/pytest.log"
    else
        echo "python/tests: numpy or pytest missing here; not run"
    fi
    torch_training || status=1
    return $status
}

# The tile.torch training test, f32 (torch.compile's default mode) then
# bf16 (reduce-overhead: CUDA graphs); PASS/FAIL tables in
# $OUT/mlp_train.txt and $OUT/mlp_train_bf16.txt.
torch_training() {
    there torch/mlp-bf16.tlb.xz || return 2
    if ! python3 -c 'import torch' 2> /dev/null; then
        echo "examples/torch/mlp_train.py: no torch here; not run" | tee "$OUT/mlp_train.txt"
        return 1
    fi
    local bundles=/tmp/tile-torch-bundles
    unpack_bundles "$build/torch" "$bundles" || return 1
    local status=0
    train_once mlp_train.txt "$bundles" || status=1
    train_once mlp_train_bf16.txt "$bundles" --dtype bf16 --compile-mode reduce-overhead ||
        status=1
    return $status
}

# train_once FILE BUNDLES [OPTION...]: mlp_train.py with the options and
# MLP_ARGS, its output also in $OUT/FILE; its exit status.
train_once() {
    local file=$1 bundles=$2
    shift 2
    # shellcheck disable=SC2086  # MLP_ARGS is a list of options
    python3 examples/torch/mlp_train.py --device cuda --bundle-dir "$bundles" "$@" \
        ${MLP_ARGS:-} 2>&1 | tee "$OUT/$file"
    return "${PIPESTATUS[0]}"
}

case ${1:-run} in
prepare) prepare ;;
bundles) torch_bundles "${2:?usage: scripts/gpu-python.sh bundles DIR}" ;;
unpack) unpack_bundles "${2:?}" "${3:?usage: scripts/gpu-python.sh unpack FROM TO}" ;;
run) run ;;
torch) torch_training ;;
*) echo "usage: scripts/gpu-python.sh [prepare|run|torch|bundles DIR|unpack FROM TO]" >&2; exit 2 ;;
esac
