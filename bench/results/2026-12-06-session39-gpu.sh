#!/bin/bash
# Session 39's device call: warpgroups taking turns at attention's
# products (tilec --pingpong), checked (the differential tests on the
# GPU, compute-sanitizer racecheck and synccheck over pingpong.tile) and
# timed against the default beside cuDNN (-session39-ab.py).
# Here: bash bench/results/2026-12-06-session39-prepare.sh
# Device call: run(command="bash bench/results/2026-12-06-session39-gpu.sh", carry=["build-s39"])
cd "$(dirname "$0")/../.."
o=build-s39
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for f in pingpong dot tma early induction styles; do
    echo "difftest $f.tile sm_90a:"
    timeout 60 $o/ops/difftest -q $o/ops/sm_90a tests/gpu/ops/$f.tile 2>&1 | tail -1
done
for tool in racecheck synccheck; do
    timeout 100 compute-sanitizer --tool $tool $o/ops/difftest -q $o/ops/sm_90a \
        tests/gpu/ops/pingpong.tile > /tmp/$tool.txt 2>&1
    echo "$tool pingpong.tile rc=$?"; grep -E "hazard|ERROR SUMMARY|passed" /tmp/$tool.txt | tail -2
done
timeout 360 python3 bench/results/2026-12-06-session39-ab.py $o/ab
