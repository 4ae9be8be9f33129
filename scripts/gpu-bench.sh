#!/usr/bin/env bash
# gpu-bench.sh — the GPU examples' tests and the benchmark, in one command.
#
#   scripts/gpu-bench.sh prepare     HERE, where tilec builds (LLVM 22): builds
#                                    everything the GPU machine needs into
#                                    build-gpu/ and prints the device call
#   scripts/gpu-bench.sh [run]       THERE, on the GPU machine: tests, then bench
#   scripts/gpu-bench.sh tests       there: only the tests
#   scripts/gpu-bench.sh bench [STEP ...]   there: only bench/bench.py (e.g. `bench user`)
#   scripts/gpu-bench.sh sanitize    there: compute-sanitizer memcheck and
#                                    racecheck over the examples' tests
#   scripts/gpu-bench.sh libtile PATH   here: only libtile.so, to PATH
#
# The GPU machine has gcc, Python 3.12, PyTorch and Triton but no LLVM, so
# tilec cannot run there: `prepare` compiles here and the device call
# carries build-gpu/ (a few MiB) beside the working tree:
#   build-gpu/libtile.so        libtile as a shared library, for bench.py's ctypes
#   build-gpu/bin/              static programs (libtile linked in; libc,
#                               and the driver through dlopen, only):
#                               examples_gpu, test_gpu_runtime,
#                               launch_overhead, the example host programs
#   build-gpu/examples/*.tlb    every example's bundle (tests/gpu/examples-bundles.sh)
#   build-gpu/bench/*.tlb       the benchmark's one-configuration bundles
#                               (bench/configs.py, bench/build_bundles.py)
#                               and softmax_tune.tlb (examples/softmax.tile,
#                               all its configurations: the `tune` step)
#   build-gpu/compile_time.tsv  tilec's compile time here (bench/compile_time.sh)
# Bundles are for GPU_ARCH (default sm_90a: the H200's own features,
# warpgroup MMA among them; PTX and, ptxas being here, the cubin), and the
# tensor-core examples' also for sm_90 in build-gpu/examples-sm_90, so
# that `tests` checks mma.sync there too.
#
# `run` writes under $OUT (default build-gpu/out): examples_gpu.log,
# test_gpu_runtime.log, launch_overhead.txt, bench.tsv, bench.md, bench.log,
# bench-bandwidth.png, bench-tflops.png (bench/charts.py), nvidia-smi.txt. Each example runs in its own process, so a fault in one
# cannot stop the others; bench.py guards each workload the same way. The
# tests' summary and then the benchmark table are printed last. Exit
# status: 0 when every test passed and every check of the benchmark held.
set -u
cd "$(dirname "$0")/.."
top=$PWD
build=$top/build-gpu
examples="vadd bias_gelu bias_gelu_bf16 softmax layernorm layernorm_f16 cross_entropy
          stencil dropout transpose spec_vadd spec_bias_gelu spec_softmax
          matmul matmul_bf16 matmul_f32 matmul_bias_relu matmul_gelu bmm
          attention_d64 attention_d64_causal attention_d128 attention_d128_causal
          matmul_wg matmul_wg_bf16 matmul_bias_relu_wg linear_relu linear_relu_wg
          attention_d128_wg attention_d128_causal_wg"
dot_examples="matmul matmul_bf16 matmul_f32 matmul_bias_relu matmul_gelu bmm attention_d64
              matmul_wg matmul_wg_bf16 matmul_bias_relu_wg linear_relu linear_relu_wg
              attention_d128_wg attention_d128_causal_wg"
arch=${GPU_ARCH:-sm_90a}

# libtile as one shared library with nothing but libc's to load (for
# Python's ctypes there): libtile_so PATH.
libtile_so() {
    ${CC:-gcc} -O2 -shared -fPIC -std=c11 -D_POSIX_C_SOURCE=200809L -I. -Wl,--no-undefined \
        -o "$1" runtime/driver.c runtime/error.c runtime/plan.c \
        runtime/load.c runtime/launch.c runtime/select.c runtime/tune.c runtime/cache.c \
        bundle/format.c bundle/read.c bundle/write.c bundle/choose.c bundle/expr_text.c \
        -ldl -lpthread -lm
}

prepare() {
    set -e
    [ -x ./tilec ] || { echo "build the tree first (./configure && make)" >&2; exit 1; }
    local progs="tests/gpu/examples_gpu tests/unit/test_gpu_runtime bench/launch_overhead"
    local p
    for p in vadd bias_gelu softmax layernorm cross_entropy stencil dropout transpose mma; do
        progs="$progs examples/host/$p"
    done
    make -j2 tilec $progs
    rm -rf "$build"
    mkdir -p "$build/bin"
    cp $progs "$build/bin/"
    libtile_so "$build/libtile.so"
    export TILE_STDLIB=$top/stdlib
    tests/gpu/examples-bundles.sh "$top/tilec" "$build/examples" "$arch"
    [ "$arch" = sm_90 ] || tests/gpu/examples-bundles.sh "$top/tilec" "$build/examples-sm_90" sm_90
    python3 bench/build_bundles.py "$top/tilec" "$build/bench" --arch "$arch"
    python3 -m py_compile bench/bench.py bench/tile_ctypes.py bench/configs.py bench/charts.py bench/user_bench.py \
        bench/hosttime.py
    python3 bench/bench.py --build "$build" --dry-run > "$build/dry-run.txt" ||
        { cat "$build/dry-run.txt" >&2; exit 1; }
    tail -1 "$build/dry-run.txt"
    bench/compile_time.sh "$top/tilec" "$build/bench/src/softmax_f32_1024_w4.tile" \
        "$build/compile_time.tsv"
    set +e
    # Here, without a GPU, every program must skip cleanly.
    for p in "$build"/bin/*; do
        "$p" "$build/examples" > /dev/null 2>&1
        local rc=$?
        [ $rc -eq 77 ] || [ $rc -eq 0 ] || { echo "$p exited $rc here" >&2; exit 1; }
    done
    echo
    echo "prepared $build ($(du -sh "$build" | cut -f1); the working tree: $(git ls-files -z | du -cb --files0-from=- | tail -1 | cut -f1) bytes)"
    echo "device call:"
    echo "  run(command=\"scripts/gpu-bench.sh run\", carry=[\"build-gpu\"], kind=\"nvidia-h200\", timeout_s=600)"
    echo "or in two calls: command \"scripts/gpu-bench.sh tests\", then \"scripts/gpu-bench.sh bench\" (same carry)"
}

out_dir() {
    OUT=${OUT:-$build/out}
    mkdir -p "$OUT"
    export OUT
}

check_prepared() {
    [ -x "$build/bin/examples_gpu" ] && [ -f "$build/libtile.so" ] || {
        echo "build-gpu/ is missing: run 'scripts/gpu-bench.sh prepare' where tilec builds and carry build-gpu" >&2
        exit 2
    }
}

# run_example DIR NAME LABEL: one example's test, its line in $summary
run_example() {
    "$build/bin/examples_gpu" "$1" "$2" >> "$OUT/examples_gpu.log" 2>&1
    case $? in
    0) summary="$summary  $3 ok\n" ;;
    77) summary="$summary  $3 SKIPPED (no GPU)\n"; status=1 ;;
    *) summary="$summary  $3 FAILED\n"; status=1 ;;
    esac
}

tests() {
    local e rc
    status=0 summary=""
    for e in $examples; do run_example "$build/examples" "$e" "$e"; done
    if [ -d "$build/examples-sm_90" ]; then
        for e in $dot_examples; do run_example "$build/examples-sm_90" "$e" "$e@sm_90"; done
    fi
    "$build/bin/test_gpu_runtime" "$build/examples/vadd.tlb" "$build/examples/softmax.tlb" \
        > "$OUT/test_gpu_runtime.log" 2>&1
    rc=$?
    [ $rc -eq 0 ] || status=1
    summary="$summary  test_gpu_runtime $([ $rc -eq 0 ] && echo ok || echo "FAILED (exit $rc)")\n"
    grep -E "FAIL|error" "$OUT/examples_gpu.log" | head -40
    echo "== GPU tests (logs: \$OUT/examples_gpu.log, test_gpu_runtime.log)"
    printf "%b" "$summary"
    return $status
}

bench() {
    local status=0
    "$build/bin/launch_overhead" > "$OUT/launch_overhead.txt" 2>&1 || status=1
    cat "$OUT/launch_overhead.txt"
    python3 bench/bench.py --build "$build" --out "$OUT" "$@" 2>&1 | tee "$OUT/bench.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
    return $status
}

sanitize() {
    command -v compute-sanitizer > /dev/null || { echo "no compute-sanitizer on PATH" >&2; return 1; }
    local status=0 tool e
    for tool in memcheck racecheck; do
        for e in vadd softmax layernorm cross_entropy stencil transpose matmul_wg; do
            compute-sanitizer --tool "$tool" --error-exitcode 3 \
                "$build/bin/examples_gpu" "$build/examples" "$e" > "$OUT/sanitize-$tool-$e.log" 2>&1
            local rc=$?
            echo "compute-sanitizer $tool $e: $([ $rc -eq 0 ] && echo clean || echo "exit $rc")"
            [ $rc -eq 0 ] || status=1
        done
    done
    return $status
}

mode=${1:-run}
[ $# -gt 0 ] && shift
case $mode in
prepare) prepare ;;
libtile) libtile_so "${1:?usage: scripts/gpu-bench.sh libtile PATH}" ;;
run)
    check_prepared; out_dir
    nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
    st=0
    tests > "$OUT/tests-summary.txt" 2>&1 || st=1
    bench || st=1
    echo; cat "$OUT/tests-summary.txt"
    exit $st ;;
tests) check_prepared; out_dir; tests ;;
bench) check_prepared; out_dir; bench "$@" ;;
sanitize) check_prepared; out_dir; sanitize ;;
*) sed -n '2,12p' "$0" >&2; exit 2 ;;
esac
