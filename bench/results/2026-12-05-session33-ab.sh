#!/bin/bash
# tilec --row-tma on a GPU (not yet run: session 33 had none). First the
# stand-alone check (whether TMA swizzles a box written at any 128-byte
# row of the pattern by its address, and how fast one-row copies stream
# beside 2-D boxes), then the differential tests of rowtma.tile, tma.tile
# and dot.tile for sm_90a, compute-sanitizer memcheck on rowtma.tile,
# then examples/matmul.tile per tile with and without the flag
# (-session32-ab.py: outputs poisoned and checked against float64 first,
# best of three alternated medians, beside cuBLAS).
# Here: bash bench/results/2026-12-05-session33-ab-prepare.sh
# Device call: run(command="bash bench/results/2026-12-05-session33-ab.sh",
#                  carry=["build-s33"], timeout_s=580)
cd "$(dirname "$0")/../.."
o=build-s33
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 60 $o/rowtma
for f in rowtma tma dot; do
    echo "difftest $f.tile sm_90a:"
    TILE_STDLIB=$PWD/stdlib timeout 100 $o/ops/difftest -q $o/ops/sm_90a tests/gpu/ops/$f.tile 2>&1 | tail -3
done
TILE_STDLIB=$PWD/stdlib timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 \
    $o/ops/difftest -q $o/ops/sm_90a tests/gpu/ops/rowtma.tile > /tmp/memcheck.log 2>&1
echo "memcheck rowtma.tile sm_90a rc=$?"; grep -E "ERROR SUMMARY|Invalid|passed" /tmp/memcheck.log | head -5
TILE_LIBDIR=$o PYTHONPATH=python:bench timeout 230 python3 bench/results/2026-12-05-session32-ab.py $o/ab
