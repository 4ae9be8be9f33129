#!/bin/bash
# Session 41's call 2: TMA stores on the GPU. Here: bash
# bench/results/2026-12-06-session41-prepare.sh
# Device call: run(command="bash bench/results/2026-12-06-session41-gpu2.sh", carry=["build-s41"])
cd "$(dirname "$0")/../.."
o=build-s41
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench
mkdir -p "${OUT:-/tmp}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for f in tmastore tma dot; do
    echo "== difftest $f.tile with --tma-store"
    timeout 90 $o/difftest -q $o/ops/sm_90a tests/gpu/ops/$f.tile 2>&1 | tail -3
done
for tool in memcheck racecheck; do
    timeout 120 compute-sanitizer --tool $tool $o/difftest $o/ops/sm_90a \
        tests/gpu/ops/tmastore.tile > "${OUT:-/tmp}/$tool-tmastore.txt" 2>&1
    echo "$tool tmastore.tile rc=$?"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "${OUT:-/tmp}/$tool-tmastore.txt"
done
echo "== matmul with TMA stores"
timeout 200 python3 bench/results/2026-12-06-session41-tmastore.py $o/mm
echo "== the epilogue's stores (call 1)"
timeout 120 python3 bench/results/2026-12-06-session40-stores.py $o/mm limp3
