#!/bin/bash
# Session 41, call 4 (carry build-s41 from -session41-prepare.sh, plus
# mm/p3h.tlb and p3hts.tlb: ./tilec $t --persistent [--tma-store] with
# plan/persist.c hoisting the scalars before the loop):
# run(command="bash bench/results/2026-12-06-session41-ncu.sh", carry=["build-s41"])
cd "$(dirname "$0")/../.."
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/build-s41 PYTHONPATH=$PWD/python:$PWD/bench
mkdir -p "${OUT:-/tmp}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 python3 bench/results/2026-12-06-session41-pers.py build-s41/mm
timeout 300 ncu --clock-control none -k regex:matmul --section WarpStateStats \
    --section SchedulerStats --section SpeedOfLight --section SourceCounters \
    --section LaunchStats --section Occupancy \
    python3 bench/results/2026-12-06-session41-ncu.py build-s41/mm > "${OUT:-/tmp}/ncu.txt" 2>&1
echo "ncu rc=$?"
grep -E "^  matmul|Duration|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible|Active Warps Per|Eligible Warps|SM Busy|Compute \(SM\) Throughput|Grid Size|Registers|Memory Throughput|Achieved Occ" "${OUT:-/tmp}/ncu.txt" | head -80
