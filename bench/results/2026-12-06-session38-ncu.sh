#!/bin/bash
# Session 38, call 5 (carry build-s38 from -session38-prepare.sh):
# run(command="bash bench/results/2026-12-06-session38-ncu.sh", carry=["build-s38"])
cd "$(dirname "$0")/../.."
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/build-s38 PYTHONPATH=$PWD/python:$PWD/bench
timeout 240 ncu --clock-control none -k regex:matmul --section WarpStateStats \
    --section SchedulerStats --section SpeedOfLight \
    python3 bench/results/2026-12-06-session38-ncu.py build-s38/ab > /tmp/ncu.txt 2>&1
echo "ncu rc=$?"
grep -E "^  matmul|Duration|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible|Active Warps Per|Eligible Warps|SM Busy|Compute \(SM\) Throughput" /tmp/ncu.txt | head -60
