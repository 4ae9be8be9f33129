#!/bin/bash
# Session 31, device call 3: main's realigned accesses with packed masks.
# The differential test of every tests/gpu/ops file (main's compiler,
# sm_90), compute-sanitizer memcheck on realign.tile, then -ab2.py.
# Here: OLD=... SW=... bash bench/results/2026-12-05-session31-ab2-prepare.sh
# Device call: run(command="bash bench/results/2026-12-05-session31-ab2.sh",
#                  carry=["build-s31ab2"], timeout_s=500)
cd "$(dirname "$0")/../.."
o=build-s31ab2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
TILE_STDLIB=$PWD/stdlib timeout 150 $o/ops/difftest -q $o/ops tests/gpu/ops/*.tile 2>&1 | tail -4
TILE_STDLIB=$PWD/stdlib timeout 90 compute-sanitizer --tool memcheck --error-exitcode 3 \
    $o/ops/difftest -q $o/ops tests/gpu/ops/realign.tile > /tmp/memcheck.log 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|Invalid" /tmp/memcheck.log | head -5
TILE_LIBDIR=$o PYTHONPATH=python:bench timeout 230 python3 bench/results/2026-12-05-session31-ab2.py $o/ab
