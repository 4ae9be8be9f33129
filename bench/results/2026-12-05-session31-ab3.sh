#!/bin/bash
# Session 31, device call 6: branch wip/shift-way with the shift way's
# loads issued for every group before the groups' tests ("sw"), against
# the compiler before the session ("old") and main at f34d049 ("main"):
# realign.tile's differential test and memcheck built by sw, then -ab2.py.
# Here: OLD=... SW=... bash bench/results/2026-12-05-session31-ab3-prepare.sh
# Device call: run(command="bash bench/results/2026-12-05-session31-ab3.sh",
#                  carry=["build-s31ab3"], timeout_s=300)
cd "$(dirname "$0")/../.."
o=build-s31ab3
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
TILE_STDLIB=$PWD/stdlib timeout 60 $o/ops/difftest -q $o/ops tests/gpu/ops/realign.tile 2>&1 | tail -2
TILE_STDLIB=$PWD/stdlib timeout 60 compute-sanitizer --tool memcheck --error-exitcode 3 \
    $o/ops/difftest -q $o/ops tests/gpu/ops/realign.tile > /tmp/memcheck.log 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|Invalid" /tmp/memcheck.log | head -5
TILE_LIBDIR=$o PYTHONPATH=python:bench timeout 200 python3 bench/results/2026-12-05-session31-ab2.py $o/ab
