#!/bin/bash
# Session 24 device call 4: cProfile of Tile compiled training steps in
# torch.compile's default mode (-hostprof.py), this tree's kernels.
cd "$(dirname "$0")/../.."
E=build-exp
mkdir -p /tmp/tb-new
for b in mlp-f32 cross_entropy; do xz -dc $E/new/$b.tlb.xz > /tmp/tb-new/$b.tlb; done
TILE_LIBDIR=$PWD/$E timeout 250 python3 bench/results/2026-12-04-h200-session24-hostprof.py /tmp/tb-new f32 default > $OUT/hostprof.txt 2>&1; echo "hostprof rc=$?"
grep -E "function calls|ncalls|^ +[0-9]" $OUT/hostprof.txt | cut -c1-150 | head -90
