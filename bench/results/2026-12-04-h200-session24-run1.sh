#!/bin/bash
# Session 24 device call 1: python/tests/test_torch.py with the wheel
# (pytest carried: the machine has none; the interpreter on the CPU: the
# training example's gradients, tiny training, materialize_grads), then
# the f32 training test once with this tree's kernels (bias gradients'
# partial sums in the backward kernels), then prof_mlp.py's breakdown.
cd "$(dirname "$0")/../.."
E=build-exp
python3 -m venv --system-site-packages /tmp/venv > /dev/null &&
  /tmp/venv/bin/pip install -q --no-index --no-deps $E/pyt/*.whl $E/wheel/*.whl
(unset PYTHONPATH TILE_LIBDIR TILE_STDLIB TILEC; cd /tmp && timeout 330 /tmp/venv/bin/python -m pytest -q -x -p no:cacheprovider --rootdir=$OLDPWD/python $OLDPWD/python/tests/test_torch.py > $OUT/pytest-torch.txt 2>&1; echo "pytest rc=$?"); tail -4 $OUT/pytest-torch.txt
mkdir -p /tmp/tb-new /tmp/px
for b in mlp-f32 cross_entropy; do xz -dc $E/new/$b.tlb.xz > /tmp/tb-new/$b.tlb; cp $E/new/$b.tlb.xz /tmp/px/; done
TILE_LIBDIR=$PWD/$E timeout 200 python3 examples/torch/mlp_train.py --device cuda --bundle-dir /tmp/tb-new --compile-mode reduce-overhead > $OUT/train-new.txt 2>&1; echo "train new rc=$?"
grep -E "torch eager|tile eager|tile compiled +[0-9]|FAIL|passed|vs torch" $OUT/train-new.txt | head -8
TILE_LIBDIR=$PWD/$E timeout 150 python3 bench/prof_mlp.py /tmp/px f32 > $OUT/prof-new.txt 2>&1; echo "prof rc=$?"
grep -E "^ +[a-z_]+__c|Self CUDA time total|===" $OUT/prof-new.txt | cut -c1-60,100-130 | head -40
