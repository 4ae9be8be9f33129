#!/bin/bash
# Session 31, device call: the realign shift way on the GPU — the
# differential test of tests/gpu/ops/realign.tile (its shifted loads
# among the cases) under compute-sanitizer memcheck (a read past an
# allocation would be reported), then the layernorm A/B (-ab.py).
# Here: OLD=... WP=... bash bench/results/2026-12-05-session31-ab-prepare.sh
# Device call: run(command="bash bench/results/2026-12-05-session31-ab.sh",
#                  carry=["build-s31ab"], timeout_s=400)
cd "$(dirname "$0")/../.."
o=build-s31ab
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
TILE_STDLIB=$PWD/stdlib timeout 60 $o/ops/difftest -q $o/ops tests/gpu/ops/realign.tile 2>&1 | tail -3
TILE_STDLIB=$PWD/stdlib timeout 120 compute-sanitizer --tool memcheck --error-exitcode 3 \
    $o/ops/difftest -q $o/ops tests/gpu/ops/realign.tile > /tmp/memcheck.log 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|Invalid" /tmp/memcheck.log | head -5
TILE_LIBDIR=$o PYTHONPATH=python:bench timeout 240 python3 bench/results/2026-12-05-session31-ab.py $o/ab
