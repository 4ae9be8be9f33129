#!/bin/bash
# Session 39's call 2: compute-sanitizer racecheck over pingpong.tile
# with and without --pingpong (full reports to $OUT), and the turns'
# variants timed (-session39-ab.py ... pp ppw pp1 rel rl rppl).
# Here: TILEC_PPW=... TILEC_PP1=... TILEC_LATE=... bash bench/results/2026-12-06-session39-call2-prepare.sh
# Device call: run(command="bash bench/results/2026-12-06-session39-call2.sh", carry=["build-s39b"])
cd "$(dirname "$0")/../.."
o=build-s39b
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench
mkdir -p "${OUT:-/tmp}"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for f in tma pingpong dot; do
    echo "difftest $f.tile sm_90a, refills late, released, turns:"
    timeout 60 $o/ops/difftest -q $o/ops-late/sm_90a tests/gpu/ops/$f.tile 2>&1 | tail -1
done
for d in ops ops-nopp; do
    timeout 100 compute-sanitizer --tool racecheck --racecheck-report all $o/ops/difftest \
        $o/$d/sm_90a tests/gpu/ops/pingpong.tile > "${OUT:-/tmp}/racecheck-$d.txt" 2>&1
    echo "racecheck pingpong.tile ($d) rc=$?"; grep -E "RACECHECK SUMMARY" "${OUT:-/tmp}/racecheck-$d.txt"
done
timeout 480 python3 bench/results/2026-12-06-session39-ab.py $o/ab pp ppw pp1 rel rl rppl
