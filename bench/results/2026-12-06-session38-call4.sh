#!/bin/bash
# Session 38, call 4: the barrier after a TMA loop's wait dropped where a
# product stays in flight (LyPipe.top_free) — the differential tests on
# the GPU, then timed against 58e33f2's code (-session38-ab.py top cta).
# Here: bash bench/results/2026-12-06-session38-call4-prepare.sh OLD_TILEC
# Device call: run(command="bash bench/results/2026-12-06-session38-call4.sh", carry=["build-s38b"])
cd "$(dirname "$0")/../.."
o=build-s38b
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for f in dot induction styles splitk persist user; do
    printf "difftest %s: " $f
    timeout 40 $o/ops/difftest -q $o/ops/sm_90a tests/gpu/ops/$f.tile 2>&1 | tail -1
done
timeout 90 compute-sanitizer --tool racecheck $o/ops/difftest -q $o/ops/sm_90a \
    tests/gpu/ops/dot.tile > /tmp/racecheck.txt 2>&1
echo "racecheck dot.tile rc=$?"; grep -E "hazard" /tmp/racecheck.txt | tail -1
timeout 300 python3 bench/results/2026-12-06-session38-ab.py $o/ab top cta > /tmp/ab.txt 2>&1
echo "ab rc=$?"; sed -n '/µs | cta µs/,$p' /tmp/ab.txt; grep -i "wrong\|error" /tmp/ab.txt | head
