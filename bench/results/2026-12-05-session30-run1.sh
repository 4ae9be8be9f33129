#!/bin/bash
# Session 30, device call 1 (prepared in session 29, which had no GPU):
# products issued one iteration ahead (tilec --early-products) and
# persistent programs (tilec --persistent), checked on the GPU and timed
# against the default code and cuDNN / cuBLAS.
#
# Here: bench/results/2026-12-05-session30-run1-prepare.sh (its header:
# STATIC_TILEC, PTXAS) builds build-s29/ and build-gpu-fuzz/; carry both;
# two calls (each under 10 minutes):
#   bash bench/results/2026-12-05-session30-run1.sh check   (correctness)
#   bash bench/results/2026-12-05-session30-run1.sh time    (-ab.py)
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
b=build-s29
mode=${1:-all}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
if [ "$mode" != check ]; then
    # every output is checked against float64 before it is timed
    TILE_LIBDIR=$PWD/$b PYTHONPATH=$PWD/python:$PWD/bench timeout 170 \
        python3 bench/results/2026-12-05-session30-ab.py $b/ab > "$out/ab.txt" 2>&1
    echo "ab rc=$?"
    grep -v "^$" "$out/ab.txt" | tail -75
    [ "$mode" = time ] && exit 0
fi
ops="tests/gpu/ops/dot.tile tests/gpu/ops/tma.tile tests/gpu/ops/user.tile tests/gpu/ops/early.tile"
TILE_STDLIB=$PWD/stdlib timeout 50 $b/difftest $b/ops/main $ops > "$out/ops.txt" 2>&1
echo "difftest rc=$?"; grep -E "^FAIL|passed" "$out/ops.txt" | tail -4
# persistent entries on 3 programs (each walks several tiles), then as libtile launches them
for cap in 3 ""; do
    TILE_PERSISTENT_PROGRAMS=$cap TILE_STDLIB=$PWD/stdlib timeout 30 $b/difftest $b/ops/main \
        tests/gpu/ops/persist.tile > "$out/persist-${cap:-all}.txt" 2>&1
    echo "persist cap=${cap:-resident} rc=$?"; grep -E "^FAIL|passed" "$out/persist-${cap:-all}.txt" | tail -2
done
TILE_STDLIB=$PWD/stdlib timeout 50 compute-sanitizer --tool racecheck $b/difftest $b/ops/main \
    tests/gpu/ops/early.tile tests/gpu/ops/persist.tile > "$out/racecheck.txt" 2>&1
echo "racecheck early+persist rc=$?"; grep -E "hazard|ERROR SUMMARY|passed" "$out/racecheck.txt" | tail -2
TILE_STDLIB=$PWD/stdlib timeout 35 compute-sanitizer --tool memcheck $b/difftest $b/ops/main \
    tests/gpu/ops/early.tile tests/gpu/ops/persist.tile > "$out/memcheck.txt" 2>&1
echo "memcheck early+persist rc=$?"; grep -E "ERROR SUMMARY|passed" "$out/memcheck.txt" | tail -2
if [ "$mode" = check ]; then
    s=""
    for e in matmul matmul_bf16 matmul_bias_relu bmm linear_relu attention_d64_causal; do
        timeout 60 $b/bin/examples_gpu $b/examples $e >> "$out/examples_gpu.log" 2>&1
        s="$s$e=$? "
    done
    echo "examples: $s"
fi
# generated programs (dot and chain templates) with both flags, compiled there
OUT=$out/fuzz ARCH=sm_90a BUDGET=25 TILEC_FLAGS="--persistent --early-products" \
    TILE_PERSISTENT_PROGRAMS=3 GEN_OPTS="--templates dot,chain --kernels 2 --aligned-dots" \
    timeout 35 scripts/gpu-fuzz.sh run 50000 50999 > "$out/fuzz.txt" 2>&1; echo "fuzz rc=$?"
tail -2 "$out/fuzz.txt"
exit 0
