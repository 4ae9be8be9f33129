#!/bin/bash
# Session 32, device call 4: the GPU examples' tests with the shifted
# operand loads, then issue 13's sweep over the products (bench.py
# shapes matmul: n^3 around 4096 and M alone ragged, Tile and Triton at
# the same tile, cuBLAS beside) and bench.py's tensor-core steps.
# Here: scripts/gpu-bench.sh prepare (build-gpu/).
# Device call: run(command="bash bench/results/2026-12-05-session32-run4.sh",
#                  carry=["build-gpu"], timeout_s=590)
cd "$(dirname "$0")/../.."
export OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/s" "$OUT/b"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 150 scripts/gpu-bench.sh tests > "$OUT/tests.txt" 2>&1
echo "tests rc=$? ok=$(grep -c ' ok$' "$OUT/tests.txt")"
grep -E "FAILED|SKIPPED" "$OUT/tests.txt" | head -20
timeout 200 python3 bench/bench.py --build build-gpu --out "$OUT/s" --shapes matmul \
    shapes > "$OUT/s.log" 2>&1
echo "shapes rc=$?"
grep -E "CHECK FAILED|Traceback|Error" "$OUT/s.log" | head -10
cat "$OUT/s/shapes.md" 2>/dev/null | head -30
