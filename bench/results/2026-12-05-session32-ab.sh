#!/bin/bash
# Session 32, device calls 1-3: shifted operand loads (the generic variant of
# a product over rows of odd length). dot.tile's differential test for
# sm_90a and sm_80 (each case in the aligned and the generic variant),
# compute-sanitizer memcheck on the generic variants' reads, then -ab.py.
# Here: OLD=... bash bench/results/2026-12-05-session32-ab-prepare.sh
# Device call: run(command="bash bench/results/2026-12-05-session32-ab.sh",
#                  carry=["build-s32ab"], timeout_s=500)
cd "$(dirname "$0")/../.."
o=build-s32ab
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for a in sm_90a sm_80; do
    echo "difftest dot.tile $a:"
    TILE_STDLIB=$PWD/stdlib timeout 100 $o/ops/difftest -q $o/ops/$a tests/gpu/ops/dot.tile 2>&1 | tail -3
done
if [ -d $o/ops/sm_90 ]; then   # call 3: every file, sm_90
    echo "difftest all ops sm_90:"
    TILE_STDLIB=$PWD/stdlib timeout 150 $o/ops/difftest -q $o/ops/sm_90 tests/gpu/ops/*.tile 2>&1 | tail -3
fi
TILE_STDLIB=$PWD/stdlib timeout 150 compute-sanitizer --tool memcheck --error-exitcode 3 \
    $o/ops/difftest -q $o/ops/sm_90a tests/gpu/ops/dot.tile > /tmp/memcheck.log 2>&1
echo "memcheck sm_90a rc=$?"; grep -E "ERROR SUMMARY|Invalid|passed" /tmp/memcheck.log | head -5
TILE_LIBDIR=$o PYTHONPATH=python:bench timeout 230 python3 bench/results/2026-12-05-session32-ab.py $o/ab
