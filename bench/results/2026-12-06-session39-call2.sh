#!/bin/bash
# Session 39's call 2: compute-sanitizer racecheck over pingpong.tile
# with and without --pingpong (full reports to $OUT), and the turns'
# variants timed (-session39-ab.py ... pp ppw pp1).
# Here: TILEC_PPW=... TILEC_PP1=... bash bench/results/2026-12-06-session39-call2-prepare.sh
# Device call: run(command="bash bench/results/2026-12-06-session39-call2.sh", carry=["build-s39b"])
cd "$(dirname "$0")/../.."
o=build-s39b
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench
mkdir -p "${OUT:-/tmp}"
for d in ops ops-nopp; do
    timeout 100 compute-sanitizer --tool racecheck --racecheck-report all $o/ops/difftest \
        $o/$d/sm_90a tests/gpu/ops/pingpong.tile > "${OUT:-/tmp}/racecheck-$d.txt" 2>&1
    echo "racecheck pingpong.tile ($d) rc=$?"; grep -E "RACECHECK SUMMARY" "${OUT:-/tmp}/racecheck-$d.txt"
done
timeout 420 python3 bench/results/2026-12-06-session39-ab.py $o/ab pp ppw pp1
