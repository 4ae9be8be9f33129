#!/bin/bash
# Session 25 device call 3: tile.torch's written implementations
# (_make_real) against HEAD's general _real (build-exp/oldpy): host time
# per call of one op, then the phases of a training step in torch.compile's
# default mode (old, new, old, new) and reduce-overhead (new), then the
# training test in the default mode.
cd "$(dirname "$0")/../.."
E=build-exp
mkdir -p /tmp/tb
for b in mlp-f32 cross_entropy; do xz -dc $E/new/$b.tlb.xz > /tmp/tb/$b.tlb; done
export TILE_LIBDIR=$PWD/$E
R=bench/results/2026-12-04-h200-session25
for v in old new; do
  py=python; [ $v = old ] && py=$E/oldpy/python
  TILE_PY=$py timeout 120 python3 $R-realprof.py /tmp/tb > $OUT/realprof-$v.txt 2>&1; echo "realprof $v rc=$?"
  head -16 $OUT/realprof-$v.txt | tail -15
done
for v in old new old new; do
  py=python; [ $v = old ] && py=$E/oldpy/python
  TILE_PY=$py timeout 240 python3 $R-phases.py /tmp/tb f32 default >> $OUT/phases-default-$v.txt 2>&1; echo "phases default $v rc=$?"
  grep -E "^(run|torch|tile) " $OUT/phases-default-$v.txt | tail -5
done
TILE_PY=python timeout 240 python3 $R-phases.py /tmp/tb f32 reduce-overhead > $OUT/phases-ro-new.txt 2>&1; echo "phases ro new rc=$?"
grep -E "^(run|torch|tile) " $OUT/phases-ro-new.txt
timeout 300 python3 examples/torch/mlp_train.py --device cuda --bundle-dir /tmp/tb > $OUT/train-default.txt 2>&1; echo "train default rc=$?"
grep -E "^(run|torch|tile)|passed|vs" $OUT/train-default.txt
