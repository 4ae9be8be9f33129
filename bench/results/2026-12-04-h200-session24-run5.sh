#!/bin/bash
# Session 24 device call 5: test_torch.py again (the CPU f32 tolerance of
# mlp_train.py), then the forward products per configuration (-lin.py).
cd "$(dirname "$0")/../.."
E=build-exp
pip install -q --no-index --no-deps --target /tmp/pk $E/pyt/*.whl $E/wheel/*.whl > /dev/null 2>&1; echo "pip rc=$?"
(unset TILE_LIBDIR TILE_STDLIB TILEC; cd /tmp && PYTHONPATH=/tmp/pk timeout 300 python3 -m pytest -q -p no:cacheprovider --rootdir=$OLDPWD/python $OLDPWD/python/tests/test_torch.py > $OUT/pytest-torch.txt 2>&1; echo "pytest rc=$?"); tail -2 $OUT/pytest-torch.txt
xz -dc $E/lin.tlb.xz > /tmp/lin.tlb
TILE_LIBDIR=$PWD/$E timeout 250 python3 bench/results/2026-12-04-h200-session24-lin.py /tmp/lin.tlb > $OUT/lin.txt 2>&1; echo "lin rc=$?"
cat $OUT/lin.txt | cut -c1-150
