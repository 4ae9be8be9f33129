#!/bin/bash
# Session 35's device call: the differential tests of the stepped
# pointers TMA now fills (induction.tile, and styles, splitk, tma.tile);
# TMA against cp.async rings and Triton where row strides are not
# multiples of 128 bytes (-session35-stride.py); the stepped-pointer
# matmul before and after (-session35-ptrs.py).
# Here: bash bench/results/2026-12-06-session35-prepare.sh
# Device call: run(command="bash bench/results/2026-12-06-session35-gpu.sh", carry=["build-s35"])
cd "$(dirname "$0")/../.."
o=build-s35
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$o PYTHONPATH=python:bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for f in induction styles splitk tma; do
    echo "difftest $f.tile sm_90a:"
    timeout 30 $o/ops/difftest -q $o/ops/sm_90a tests/gpu/ops/$f.tile 2>&1 | tail -2
done
timeout 90 python3 bench/results/2026-12-06-session35-ptrs.py $o/ptrs-old.tlb $o/ptrs-new.tlb \
    $o/nt/tma.tlb
timeout 300 python3 bench/results/2026-12-06-session35-stride.py $o/nt
