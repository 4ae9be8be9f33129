#!/bin/bash
# Session 28, device call 1: TMA copies as the default (tilec without
# --no-tma), checked on the H200 before the default lands.
#
# Here, before the call (a built tree at the commit under test):
#   scripts/gpu-bench.sh prepare                   # build-gpu/: every bundle, TMA by default
#   build-gpu-t/ = build-gpu/bin, build-gpu/libtile.so and the dot examples'
#     bundles (build-gpu/examples/{matmul*,bmm,attention*,linear_relu*}.tlb):
#     the call's carry is 64 MiB
#   ARCH=sm_90a scripts/gpu-ops-check.sh prepare   # build-gpu-ops/; build-gpu-opt/ = its
#     difftest and the bundles with wgmma loops: dot.tlb, tma.tlb, user.tlb
#   STATIC_TILEC=... PTXAS=<ptxas 13.5> scripts/gpu-fuzz.sh prepare   # build-gpu-fuzz/
# carry ["build-gpu-t", "build-gpu-opt", "build-gpu-fuzz"], command
#   bash bench/results/2026-12-05-h200-session28-run1.sh
#
# 1. the dot examples' GPU tests (ragged shapes against host references);
# 2. the differential test of the tests/gpu/ops files with wgmma loops
#    (dot, tma, user) against the interpreter, then compute-sanitizer
#    memcheck (the other files have no loop TMA can fill);
# 3. racecheck over the matmul and attention examples' tests;
# 4. generated dot programs (tilegen --templates dot, --aligned-dots among
#    them) compiled at sm_90a there, each case on the interpreter and the GPU.
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
summary=""
for e in matmul matmul_bf16 matmul_f32 matmul_bias_relu matmul_gelu bmm attention_d64 \
         attention_d64_causal attention_d128 attention_d128_causal matmul_wg matmul_wg_bf16 \
         matmul_bias_relu_wg linear_relu linear_relu_wg; do
    build-gpu-t/bin/examples_gpu build-gpu-t/examples $e >> "$out/examples_gpu.log" 2>&1
    summary="$summary$e=$? "
done
echo "examples (exit codes): $summary"
grep -E "FAIL|error" "$out/examples_gpu.log" | head -10
ops="tests/gpu/ops/dot.tile tests/gpu/ops/tma.tile tests/gpu/ops/user.tile"
TILE_STDLIB=$PWD/stdlib timeout 200 build-gpu-opt/difftest build-gpu-opt $ops > "$out/ops.txt" 2>&1
echo "difftest rc=$?"
TILE_STDLIB=$PWD/stdlib timeout 200 compute-sanitizer --tool memcheck --error-exitcode 1 \
    build-gpu-opt/difftest build-gpu-opt $ops > "$out/memcheck.txt" 2>&1; echo "memcheck rc=$?"
grep -E "^FAIL|passed" "$out/ops.txt" | tail -6; grep "ERROR SUMMARY" "$out/memcheck.txt"
for e in matmul attention_d64_causal; do
    timeout 60 compute-sanitizer --tool racecheck build-gpu-t/bin/examples_gpu build-gpu-t/examples $e \
        > "$out/racecheck-$e.txt" 2>&1; echo "racecheck $e rc=$?"
    grep -E "ERROR SUMMARY|RACE|FAIL" "$out/racecheck-$e.txt" | head -3
done
OUT=$out/fuzz ARCH=sm_90a BUDGET=${BUDGET:-130} GEN_OPTS="--templates dot --kernels 2" \
    scripts/gpu-fuzz.sh run 40000 40999 > "$out/fuzz1.txt" 2>&1; echo "fuzz dot rc=$?"
tail -3 "$out/fuzz1.txt"
OUT=$out/fuzz2 ARCH=sm_90a BUDGET=${BUDGET:-100} GEN_OPTS="--templates dot --kernels 2 --aligned-dots" \
    scripts/gpu-fuzz.sh run 41000 41999 > "$out/fuzz2.txt" 2>&1; echo "fuzz aligned-dots rc=$?"
tail -3 "$out/fuzz2.txt"
echo "== summary"
echo "examples: $summary"
grep -E "passed" "$out/ops.txt" | tail -1; grep "ERROR SUMMARY" "$out/memcheck.txt"
