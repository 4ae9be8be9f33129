#!/bin/bash
# Session 40's call 1. Here: TILEC_PPA=... bash bench/results/2026-12-06-session40-prepare.sh
# Device call: run(command="bash bench/results/2026-12-06-session40-gpu.sh", carry=["build-s40"])
cd "$(dirname "$0")/../.."
o=build-s40
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench
mkdir -p "${OUT:-/tmp}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== a cluster of two by plain cuLaunchKernel"
timeout 30 python3 bench/results/2026-12-06-session40-cluster.py $o/cluster.cubin $o/multicast.cubin
for f in pingpong tma; do
    echo "== difftest $f.tile, turns ending in bar.arrive"
    timeout 60 $o/difftest -q $o/ops-ppa/sm_90a tests/gpu/ops/$f.tile 2>&1 | tail -1
done
timeout 150 compute-sanitizer --tool racecheck --racecheck-report all $o/difftest \
    $o/ops-ppa/sm_90a tests/gpu/ops/pingpong.tile > "${OUT:-/tmp}/racecheck-ppa.txt" 2>&1
echo "racecheck pingpong.tile (turns ending in bar.arrive) rc=$?"
grep -E "RACECHECK SUMMARY" "${OUT:-/tmp}/racecheck-ppa.txt"
echo "== matmul K sweep"
timeout 270 python3 bench/results/2026-12-06-session40-ksweep.py $o/mm
