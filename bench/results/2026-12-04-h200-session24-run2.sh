#!/bin/bash
# Session 24 device call 2: test_torch.py with the wheel and pytest on
# the machine's own python (PYTHONPATH: a venv does not see its torch),
# then the phases of a training step (-phases.py) with this tree's kernels.
cd "$(dirname "$0")/../.."
E=build-exp
pip install -q --no-index --no-deps --target /tmp/pk $E/pyt/*.whl $E/wheel/*.whl > /dev/null 2>&1; echo "pip rc=$?"
(unset TILE_LIBDIR TILE_STDLIB TILEC; cd /tmp && PYTHONPATH=/tmp/pk timeout 330 python3 -m pytest -q -p no:cacheprovider --rootdir=$OLDPWD/python $OLDPWD/python/tests/test_torch.py > $OUT/pytest-torch.txt 2>&1; echo "pytest rc=$?"); tail -6 $OUT/pytest-torch.txt
mkdir -p /tmp/tb-new
for b in mlp-f32 cross_entropy; do xz -dc $E/new/$b.tlb.xz > /tmp/tb-new/$b.tlb; done
TILE_LIBDIR=$PWD/$E timeout 200 python3 bench/results/2026-12-04-h200-session24-phases.py /tmp/tb-new f32 > $OUT/phases-new.txt 2>&1; echo "phases rc=$?"
head -6 $OUT/phases-new.txt; grep -E "^ +[a-zA-Z_]" $OUT/phases-new.txt | cut -c1-62,100-200 | head -30
