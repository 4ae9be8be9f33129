#!/bin/bash
# Session 42, device call 3 (what little device time was left): the
# differential test of persist.tile (`wide`, `wide32`: the epilogue's
# conversion in pieces), racecheck over them, then -session42-coords.py
# at 4096^3 and 8192x8192x4096. Build and carry as -session42-gpu2.sh.
cd "$(dirname "$0")/../.."
o=build-s42
out=${OUT:-/tmp/out}
mkdir -p "$out"
export TILE_STDLIB=$PWD/stdlib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 40 $o/difftest -q $o/ops/sm_90a tests/gpu/ops/persist.tile 2>&1 | tail -2
timeout 60 compute-sanitizer --tool racecheck $o/difftest -q -k wide $o/ops/sm_90a \
    tests/gpu/ops/persist.tile > "$out/racecheck-persist.txt" 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|passed" "$out/racecheck-persist.txt" | tail -2
SHAPES=short TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench timeout 90 \
    python3 bench/results/2026-12-07-session42-coords.py $o/mm
