#!/bin/bash
# Session 25 device call 11: the final tile.torch (written implementations,
# empty_like for like() outputs) against HEAD's (build-exp/oldpy): host time
# per call, phases in torch.compile's default mode alternated; then the
# training test, reduce-overhead, f32 and bf16 (this tree's kernels: mlp.tile
# with BM = 256 offered, built here).
cd "$(dirname "$0")/../.."
E=build-exp
mkdir -p /tmp/tb
for b in mlp-f32 cross_entropy; do xz -dc $E/new/$b.tlb.xz > /tmp/tb/$b.tlb; done
for b in mlp-bf16 cross_entropy-bf16; do xz -dc $E/bf16/$b.tlb.xz > /tmp/tb/$b.tlb; done
export TILE_LIBDIR=$PWD/$E
R=bench/results/2026-12-04-h200-session25
for v in old new; do
  py=python; [ $v = old ] && py=$E/oldpy/python
  TILE_PY=$py timeout 120 python3 $R-realprof.py /tmp/tb > $OUT/realprof-$v.txt 2>&1; echo "realprof $v rc=$?"
  head -5 $OUT/realprof-$v.txt | tail -4
done
for v in old new old new; do
  py=python; [ $v = old ] && py=$E/oldpy/python
  TILE_PY=$py timeout 240 python3 $R-phases.py /tmp/tb f32 default >> $OUT/phases-default-$v.txt 2>&1; echo "phases default $v rc=$?"
  grep -E "^(torch|tile) " $OUT/phases-default-$v.txt | tail -4
done
for dt in f32 bf16; do
  timeout 300 python3 examples/torch/mlp_train.py --device cuda --bundle-dir /tmp/tb --dtype $dt --compile-mode reduce-overhead > $OUT/train-ro-$dt.txt 2>&1; echo "train ro $dt rc=$?"
  grep -E "^(run|torch|tile)|passed|vs" $OUT/train-ro-$dt.txt
done
