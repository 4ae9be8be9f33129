#!/bin/bash
# Session 42, device call 2 (device time short: what checks this
# session's two changes only): (1) the differential tests of
# persist.tile (its `wide`, `wide32`: the epilogue's conversion in
# pieces) and tma.tile built by this tilec, racecheck over `wide*`; (2)
# TMA copies' coordinates computed before the product's wait, old and
# new tilec, and the persistent 4-stage kernel, beside cuBLAS
# (-session42-coords.py); (3) dot.tile.
# Here: build-s42/mm/{s3,s4,p3}{old,new}.tlb (examples/matmul.tile f16
# 128x256x64 w8, 3 / 4 stages, --persistent 3 stages, by 399f05e's
# tilec and 4863e28's) and p4new.tlb (--persistent at 4 stages, by
# f3ab783's, which splits the epilogue's conversion),
# build-s42/ops/sm_90a/{tma,persist,dot}.tlb (each file's header flags)
# and build-s42/difftest. Carry ["build-s42"].
cd "$(dirname "$0")/../.."
o=build-s42
out=${OUT:-/tmp/out}
mkdir -p "$out"
export TILE_STDLIB=$PWD/stdlib
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for f in persist tma; do
    echo "== difftest $f.tile"
    timeout 60 $o/difftest -q $o/ops/sm_90a tests/gpu/ops/$f.tile 2>&1 | tail -2
done
echo "== racecheck persist.tile wide, wide32 (the epilogue's conversion in pieces)"
timeout 100 compute-sanitizer --tool racecheck $o/difftest -q -k wide $o/ops/sm_90a \
    tests/gpu/ops/persist.tile > "$out/racecheck-persist.txt" 2>&1
echo "rc=$?"; grep -E "RACECHECK SUMMARY|passed|failed" "$out/racecheck-persist.txt" | tail -3
echo "== coordinates before the wait; persistent at 4 stages"
TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench timeout 200 \
    python3 bench/results/2026-12-07-session42-coords.py $o/mm
echo "== difftest dot.tile"
timeout 60 $o/difftest -q $o/ops/sm_90a tests/gpu/ops/dot.tile 2>&1 | tail -2
