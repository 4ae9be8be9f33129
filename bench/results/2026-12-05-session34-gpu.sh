#!/bin/bash
# Session 34's one device call, most wanted first: session 33's prepared
# checks of tilec --row-tma (-session33-rowtma.cu; the differential tests
# of rowtma.tile and tma.tile; examples/matmul.tile per tile with and
# without the flag, -session32-ab.py), the new differential tests
# (induction.tile, styles.tile, splitk.tile), the hand-split last wave
# (-session34-splittail.py), a matmul stepping its pointers before and
# after plan/induction.c (-session34-ptrs.py), then memcheck on
# rowtma.tile.
# Here (a built tree): bash bench/results/2026-12-05-session33-ab-prepare.sh, then
#   for f in induction styles splitk; do ./tilec --arch=sm_90a -o build-s33/ops/sm_90a/$f.tlb tests/gpu/ops/$f.tile; done
#   ./tilec --arch=sm_90a -o build-s33/split.tlb bench/results/2026-12-05-session34-splittail.tile
#   OLD_TILEC --arch=sm_90a -o build-s33/ptrs-old.tlb bench/results/2026-12-05-session34-ptrs.tile  (badb5ea's)
#   ./tilec --arch=sm_90a -o build-s33/ptrs-new.tlb bench/results/2026-12-05-session34-ptrs.tile
# Device call: run(command="bash bench/results/2026-12-05-session34-gpu.sh",
#                  carry=["build-s33"], timeout_s=450)
cd "$(dirname "$0")/../.."
o=build-s33
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$o PYTHONPATH=python:bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 30 $o/rowtma
for f in rowtma induction splitk tma styles; do
    echo "difftest $f.tile sm_90a:"
    timeout 30 $o/ops/difftest -q $o/ops/sm_90a tests/gpu/ops/$f.tile 2>&1 | tail -2
done
timeout 150 python3 bench/results/2026-12-05-session32-ab.py $o/ab
timeout 70 python3 bench/results/2026-12-05-session34-splittail.py $o/split.tlb $o/ab
timeout 50 python3 bench/results/2026-12-05-session34-ptrs.py $o/ptrs-old.tlb $o/ptrs-new.tlb $o/ab
timeout 40 compute-sanitizer --tool memcheck --error-exitcode 3 \
    $o/ops/difftest -q $o/ops/sm_90a tests/gpu/ops/rowtma.tile > /tmp/memcheck.log 2>&1
echo "memcheck rowtma.tile sm_90a rc=$?"; grep -E "ERROR SUMMARY|Invalid|passed" /tmp/memcheck.log | head -5
