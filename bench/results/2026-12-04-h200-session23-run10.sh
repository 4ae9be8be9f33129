#!/bin/bash
# Session 23 device call 10: the training example's gradients in the
# interpreter (the wheel), then the f32 training test, cross-entropy split
# (this tree) against the design before (38660fd), three alternations.
cd "$(dirname "$0")/../.."
E=build-exp
python3 -m venv --system-site-packages /tmp/venv > /dev/null && /tmp/venv/bin/pip install -q --no-index --no-deps $E/wheel/*.whl
(unset PYTHONPATH TILE_LIBDIR TILE_STDLIB TILEC; /tmp/venv/bin/python bench/results/2026-12-04-h200-session23-mlpgrads.py > $OUT/mlpgrads.txt 2>&1; echo "grads rc=$?"); tail -9 $OUT/mlpgrads.txt
for v in prev ce; do
  mkdir -p /tmp/tb-$v
  xz -dc $E/$v-mlp-f32.tlb.xz > /tmp/tb-$v/mlp-f32.tlb
  xz -dc $E/$v-cross_entropy.tlb.xz > /tmp/tb-$v/cross_entropy.tlb
done
cp $E/mlp_train_prev.py examples/torch/mlp_train_prev.py
for v in prev ce prev ce prev ce; do
  s=examples/torch/mlp_train.py; [ $v = prev ] && s=examples/torch/mlp_train_prev.py
  TILE_LIBDIR=$PWD/$E timeout 200 python3 $s --device cuda --bundle-dir /tmp/tb-$v --compile-mode reduce-overhead > $OUT/train-$v.txt 2>&1; echo "train $v rc=$?"
  grep -E "torch eager|tile compiled +[0-9]|passed" $OUT/train-$v.txt | head -3
done
rm -f examples/torch/mlp_train_prev.py
