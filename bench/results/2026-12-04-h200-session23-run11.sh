#!/bin/bash
# Session 23 device call 11: dot.tile on the GPU with this compiler
# (+ racecheck of its tf32 register-A products), and the training
# example's gradients in the interpreter of the wheel (its package put
# on PYTHONPATH of the machine's torch Python).
cd "$(dirname "$0")/../.."
E=build-exp
TILE_STDLIB=$PWD/stdlib $E/ops/difftest $E/ops tests/gpu/ops/dot.tile > $OUT/dot.txt 2>&1; echo "dot rc=$?"; tail -1 $OUT/dot.txt
TILE_STDLIB=$PWD/stdlib timeout 300 compute-sanitizer --tool racecheck --error-exitcode 1 $E/ops/difftest -k wg_tf32_tn $E/ops tests/gpu/ops/dot.tile > $OUT/racecheck.txt 2>&1; echo "racecheck rc=$?"; tail -2 $OUT/racecheck.txt
python3 -m pip install -q --no-index --no-deps --target /tmp/wheelpkg $E/wheel/*.whl
(unset TILE_LIBDIR TILE_STDLIB TILEC; PYTHONPATH=/tmp/wheelpkg python3 bench/results/2026-12-04-h200-session23-mlpgrads.py > $OUT/mlpgrads.txt 2>&1; echo "grads rc=$?"); tail -9 $OUT/mlpgrads.txt
