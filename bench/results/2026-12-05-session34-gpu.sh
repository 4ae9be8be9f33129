#!/bin/bash
# Session 34's one device call: session 33's prepared checks of tilec
# --row-tma (-session33-ab.sh, less dot.tile's differential test, whose
# default PTX has not changed since session 32 ran it) and the hand-split
# last wave (-session34-splittail.sh), in one call so that one machine
# answers both.
# Here: bash bench/results/2026-12-05-session33-ab-prepare.sh, then
#   ./tilec --arch=sm_90a -o build-s33/split.tlb bench/results/2026-12-05-session34-splittail.tile
#   ./tilec --arch=sm_90a -o build-s33/ops/sm_90a/splitk.tlb tests/gpu/ops/splitk.tile
# Device call: run(command="bash bench/results/2026-12-05-session34-gpu.sh",
#                  carry=["build-s33"], timeout_s=590)
cd "$(dirname "$0")/../.."
o=build-s33
export TILE_STDLIB=$PWD/stdlib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 60 $o/rowtma
for f in rowtma tma splitk; do
    echo "difftest $f.tile sm_90a:"
    timeout 90 $o/ops/difftest -q $o/ops/sm_90a tests/gpu/ops/$f.tile 2>&1 | tail -2
done
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 3 \
    $o/ops/difftest -q $o/ops/sm_90a tests/gpu/ops/rowtma.tile > /tmp/memcheck.log 2>&1
echo "memcheck rowtma.tile sm_90a rc=$?"; grep -E "ERROR SUMMARY|Invalid|passed" /tmp/memcheck.log | head -5
TILE_LIBDIR=$o PYTHONPATH=python:bench timeout 150 python3 \
    bench/results/2026-12-05-session34-splittail.py $o/split.tlb $o/ab
TILE_LIBDIR=$o PYTHONPATH=python:bench timeout 200 python3 \
    bench/results/2026-12-05-session32-ab.py $o/ab
