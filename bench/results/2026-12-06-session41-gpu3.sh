#!/bin/bash
# Session 41's call 3: TMA stores, checked and timed. Here:
# GEN_DIRS="/tmp/g1 /tmp/g3" bash bench/results/2026-12-06-session41-prepare3.sh
# Device call: run(command="bash bench/results/2026-12-06-session41-gpu3.sh", carry=["build-s41b"])
cd "$(dirname "$0")/../.."
o=build-s41b
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench
mkdir -p "${OUT:-/tmp}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for f in tmastore tma dot persist; do
    echo "== difftest $f.tile with --tma-store"
    timeout 90 $o/difftest -q $o/ops/sm_90a tests/gpu/ops/$f.tile 2>&1 | tail -2
done
echo "== generated programs with --tma-store"
(cd $o/gen && ls g*.tile | wc -l && timeout 120 ../difftest -q . g*.tile 2>&1 | tail -3)
for tool in memcheck racecheck synccheck; do
    timeout 100 compute-sanitizer --tool $tool $o/difftest $o/ops/sm_90a \
        tests/gpu/ops/tmastore.tile > "${OUT:-/tmp}/$tool-tmastore.txt" 2>&1
    echo "$tool tmastore.tile rc=$?"
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "${OUT:-/tmp}/$tool-tmastore.txt"
done
echo "== matmul"
timeout 200 python3 bench/results/2026-12-06-session41-mm3.py $o/mm
echo "== attention"
timeout 150 python3 bench/results/2026-12-06-session39-ab.py $o/ab ts
