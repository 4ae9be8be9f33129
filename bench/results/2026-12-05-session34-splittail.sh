#!/bin/bash
# Session 34: the hand-split last wave (-session34-splittail.tile/.py).
# Here: bash bench/results/2026-12-05-session33-ab-prepare.sh, then
#   ./tilec --arch=sm_90a -o build-s33/split.tlb bench/results/2026-12-05-session34-splittail.tile
#   ./tilec --arch=sm_90a -o build-s33/ops/sm_90a/splitk.tlb tests/gpu/ops/splitk.tile
# Device call: run(command="bash bench/results/2026-12-05-session34-splittail.sh",
#                  carry=["build-s33"])
cd "$(dirname "$0")/../.."
o=build-s33
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "difftest splitk.tile sm_90a:"
TILE_STDLIB=$PWD/stdlib timeout 60 $o/ops/difftest -q $o/ops/sm_90a tests/gpu/ops/splitk.tile 2>&1 | tail -3
TILE_LIBDIR=$o PYTHONPATH=python:bench timeout 300 python3 \
    bench/results/2026-12-05-session34-splittail.py $o/split.tlb $o/ab
