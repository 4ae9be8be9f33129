#!/bin/bash
# Session 42, device call 1: issue 13's whole shape sweep (every part:
# 1-D, softmax, layernorm, cross-entropy, transpose, matmul, the language
# model's head, attention), Tile beside Triton and PyTorch in one process,
# every output checked against float64 first.
#
# Here (a built checkout at the commit named in docs/PERF.md):
#   mkdir -p build-s42 && TILE_STDLIB=$PWD/stdlib python3 bench/build_bundles.py \
#       ./tilec build-s42/bench --arch sm_90a && scripts/gpu-bench.sh libtile build-s42/libtile.so
# then run(command="bash bench/results/2026-12-07-session42-gpu1.sh", carry=["build-s42"]).
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}
mkdir -p "$out/shapes"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 560 python3 bench/bench.py --build build-s42 --out "$out/shapes" shapes \
    > "$out/shapes.log" 2>&1; echo "shapes rc=$?"
grep -E "CHECK FAILED|Traceback|Error" "$out/shapes.log" | head -10
cat "$out/shapes/shapes.md" 2>/dev/null
