E=build-exp
true
(unset TILE_LIBDIR TILE_STDLIB TILEC; PYTHONPATH=/tmp/wheelpkg python3 bench/results/2026-12-04-h200-session23-mlpgrads.py > $OUT/mlpgrads.txt 2>&1; echo "grads (split) rc=$?"); tail -11 $OUT/mlpgrads.txt | grep -v "^  File\|^    "
(unset TILE_LIBDIR TILE_STDLIB TILEC; MLP_DIR=$PWD/$E/prev/torch PYTHONPATH=/tmp/wheelpkg python3 bench/results/2026-12-04-h200-session23-mlpgrads.py > $OUT/mlpgrads-before.txt 2>&1; echo "grads (before) rc=$?"); tail -11 $OUT/mlpgrads-before.txt | grep -v "^  File\|^    "
