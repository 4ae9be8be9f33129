#!/usr/bin/env bash
# gpu-python.sh — the Python binding on the GPU machine: the host time per
# launch beside Triton (bench/py_launch.py, ISSUE 5's target: at most half
# of Triton's) and the package's tests (python/tests), in one command.
#
#   scripts/gpu-python.sh prepare   HERE: build-gpu/ (scripts/gpu-bench.sh
#                                   prepare, when it is not there yet) plus
#                                   the tests' helpers: build-gpu/bin/
#                                   write_vadd_bundle and fakecuda.so
#   scripts/gpu-python.sh [run]     THERE, carrying build-gpu: py_launch.py
#                                   (3 rounds), then pytest over
#                                   python/tests/test_gpu.py (the interpreter's
#                                   tests need libtilec, built with LLVM: here)
#
# Device call, after prepare:
#   run(command="scripts/gpu-python.sh run", carry=["build-gpu"], kind="nvidia-h200", timeout_s=600)
# `run` writes $OUT/py_launch.txt and $OUT/pytest.log (OUT: default
# build-gpu/out). Exit status: 0 when the benchmark's results were right
# and the tests passed (the 0.5 target is reported, not enforced).
set -u
cd "$(dirname "$0")/.."
top=$PWD
build=$top/build-gpu

prepare() {
    set -e
    [ -f "$build/libtile.so" ] && [ -f "$build/examples/vadd.tlb" ] || scripts/gpu-bench.sh prepare
    make -j2 python/tests/write_vadd_bundle tests/unit/fakecuda.so
    mkdir -p "$build/bin"
    cp python/tests/write_vadd_bundle tests/unit/fakecuda.so "$build/bin/"
    echo "device call:"
    echo "  run(command=\"scripts/gpu-python.sh run\", carry=[\"build-gpu\"], kind=\"nvidia-h200\", timeout_s=600)"
}

run() {
    [ -f "$build/libtile.so" ] && [ -f "$build/bin/write_vadd_bundle" ] || {
        echo "build-gpu/ is missing: run 'scripts/gpu-python.sh prepare' where tilec builds and carry build-gpu" >&2
        exit 2
    }
    OUT=${OUT:-$build/out}
    mkdir -p "$OUT"
    export TILE_LIBDIR=$build PYTHONPATH=$top/python PYTHONDONTWRITEBYTECODE=1
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
    return $status
}

case ${1:-run} in
prepare) prepare ;;
run) run ;;
*) echo "usage: scripts/gpu-python.sh [prepare|run]" >&2; exit 2 ;;
esac
