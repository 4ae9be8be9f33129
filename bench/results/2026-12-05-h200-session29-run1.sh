#!/bin/bash
# Session 29, device call 1 — PREPARED (no GPU was lent in session 29):
# products issued one iteration ahead (tilec --early-products, main),
# persistent programs (tilec --persistent, main) and TMA loops without
# barriers (branch wip/tma-release, "rel"), checked on the H200 and timed
# against main and cuDNN / cuBLAS.
#
# Here: bench/results/2026-12-05-h200-session29-run1-prepare.sh (its
# header: REL_TILEC, STATIC_TILEC, PTXAS) builds build-s29/ and
# build-gpu-fuzz/; carry both; two calls (each under 10 minutes):
#   bash bench/results/2026-12-05-h200-session29-run1.sh check   (correctness)
#   bash bench/results/2026-12-05-h200-session29-run1.sh time    (-ab.py)
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
b=build-s29
if [ "${1:-check}" = time ]; then
    TILE_LIBDIR=$PWD/$b PYTHONPATH=$PWD/python:$PWD/bench timeout 500 \
        python3 bench/results/2026-12-05-h200-session29-ab.py $b/ab > "$out/ab.txt" 2>&1
    echo "ab rc=$?"
    grep -v "^$" "$out/ab.txt" | tail -70
    exit 0
fi
ops="tests/gpu/ops/dot.tile tests/gpu/ops/tma.tile tests/gpu/ops/user.tile tests/gpu/ops/early.tile"
for v in main rel; do
    TILE_STDLIB=$PWD/stdlib timeout 100 $b/difftest $b/ops/$v $ops > "$out/ops-$v.txt" 2>&1
    echo "difftest $v rc=$?"; grep -E "^FAIL|passed" "$out/ops-$v.txt" | tail -4
    # persistent entries on 3 programs (each walks several tiles), then as libtile launches them
    for cap in 3 ""; do
        TILE_PERSISTENT_PROGRAMS=$cap TILE_STDLIB=$PWD/stdlib timeout 60 $b/difftest $b/ops/$v \
            tests/gpu/ops/persist.tile > "$out/persist-$v-${cap:-all}.txt" 2>&1
        echo "persist $v cap=${cap:-resident} rc=$?"; grep -E "^FAIL|passed" "$out/persist-$v-${cap:-all}.txt" | tail -2
    done
done
TILE_STDLIB=$PWD/stdlib timeout 90 compute-sanitizer --tool racecheck $b/difftest $b/ops/main \
    tests/gpu/ops/early.tile > "$out/racecheck-early.txt" 2>&1
echo "racecheck early rc=$?"; grep -E "hazard|ERROR SUMMARY|passed" "$out/racecheck-early.txt" | tail -2
TILE_STDLIB=$PWD/stdlib timeout 60 compute-sanitizer --tool memcheck $b/difftest $b/ops/main \
    tests/gpu/ops/early.tile > "$out/memcheck-early.txt" 2>&1
echo "memcheck early rc=$?"; grep -E "ERROR SUMMARY|passed" "$out/memcheck-early.txt" | tail -2
s=""
for e in matmul matmul_bf16 matmul_bias_relu bmm linear_relu attention_d64_causal; do
    timeout 60 $b/bin/examples_gpu $b/examples $e >> "$out/examples_gpu.log" 2>&1
    s="$s$e=$? "
done
echo "examples: $s"
OUT=$out/fuzz ARCH=sm_90a BUDGET=40 TILEC_FLAGS=--early-products \
    GEN_OPTS="--templates chain --kernels 2 --aligned-dots" \
    timeout 90 scripts/gpu-fuzz.sh run 50000 50999 > "$out/fuzz.txt" 2>&1; echo "fuzz rc=$?"
tail -2 "$out/fuzz.txt"
OUT=$out/fuzzp ARCH=sm_90a BUDGET=40 TILEC_FLAGS=--persistent TILE_PERSISTENT_PROGRAMS=3 \
    GEN_OPTS="--templates dot --kernels 2 --aligned-dots" \
    timeout 90 scripts/gpu-fuzz.sh run 51000 51999 > "$out/fuzzp.txt" 2>&1; echo "fuzz persistent rc=$?"
tail -2 "$out/fuzzp.txt"
