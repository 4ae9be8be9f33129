#!/bin/bash
# Session 23 device call 8: the Python tests of the training example with
# the wheel (interpreter: every gradient against PyTorch's), then the f32
# training test with cross-entropy split into a forward and a backward
# (this tree) against the design before (38660fd's mlp_train.py, forward
# computing the gradient, scaled by mlp.tile's scale_rows) — both bundle
# sets built by 38660fd's compiler — alternated, then prof_mlp.py.
cd "$(dirname "$0")/../.."
E=build-exp
python3 -m venv --system-site-packages /tmp/venv > /dev/null && /tmp/venv/bin/pip install -q --no-index --no-deps $E/wheel/*.whl
(unset PYTHONPATH TILE_LIBDIR TILE_STDLIB TILEC; cd /tmp && /tmp/venv/bin/python -m pytest -q -p no:cacheprovider --rootdir=$OLDPWD/python $OLDPWD/python/tests/test_torch.py -k "mlp" > $OUT/pytest-mlp.txt 2>&1; echo "pytest rc=$?"); tail -3 $OUT/pytest-mlp.txt
for v in prev ce; do
  mkdir -p /tmp/tb-$v
  xz -dc $E/$v-mlp-f32.tlb.xz > /tmp/tb-$v/mlp-f32.tlb
  xz -dc $E/$v-cross_entropy.tlb.xz > /tmp/tb-$v/cross_entropy.tlb
done
cp $E/mlp_train_prev.py examples/torch/mlp_train_prev.py
for v in prev ce prev ce; do
  s=examples/torch/mlp_train.py; [ $v = prev ] && s=examples/torch/mlp_train_prev.py
  TILE_LIBDIR=$PWD/$E timeout 200 python3 $s --device cuda --bundle-dir /tmp/tb-$v --compile-mode reduce-overhead > $OUT/train-$v.txt 2>&1; echo "train $v rc=$?"
  grep -E "torch eager|tile eager|tile compiled|passed" $OUT/train-$v.txt | head -5
done
rm -f examples/torch/mlp_train_prev.py
mkdir -p /tmp/px && cp $E/ce-mlp-f32.tlb.xz /tmp/px/mlp-f32.tlb.xz && cp $E/ce-cross_entropy.tlb.xz /tmp/px/cross_entropy.tlb.xz
TILE_LIBDIR=$PWD/$E timeout 200 python3 bench/prof_mlp.py /tmp/px f32 > $OUT/prof-ce.txt 2>&1; echo "prof rc=$?"
grep -E "cross_entropy|Self CUDA time total" $OUT/prof-ce.txt
