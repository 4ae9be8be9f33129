#!/bin/bash
# Session 38's device call: TMA loops whose slots are released through
# mbarriers, no CTA barrier an iteration (the default), checked (the
# differential tests on the GPU, compute-sanitizer racecheck and
# memcheck over tma.tile) and timed against --slot-sync=cta (the barrier an
# iteration of sessions 27-37) beside cuBLAS / cuDNN
# (-session38-ab.py).
# Here: bash bench/results/2026-12-06-session38-prepare.sh
# Device call: run(command="bash bench/results/2026-12-06-session38-gpu.sh", carry=["build-s38"])
# (when run, "rel" bundles were the default build: the prepare script now
# passes --slot-sync=mbarrier for them, as the default became cta)
cd "$(dirname "$0")/../.."
o=build-s38
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for f in dot tma induction styles splitk persist early user; do
    echo "difftest $f.tile sm_90a:"
    timeout 40 $o/ops/difftest -q $o/ops/sm_90a tests/gpu/ops/$f.tile 2>&1 | tail -1
done
for tool in racecheck memcheck; do
    timeout 90 compute-sanitizer --tool $tool $o/ops/difftest -q $o/ops/sm_90a \
        tests/gpu/ops/tma.tile > /tmp/$tool.txt 2>&1
    echo "$tool tma.tile rc=$?"; grep -E "hazard|ERROR SUMMARY|passed" /tmp/$tool.txt | tail -2
done
timeout 400 python3 bench/results/2026-12-06-session38-ab.py $o/ab
