#!/bin/bash
# Session 31, device call 4: the GPU examples' tests at f34d049 (realigned
# masks packed), then issue 13's sweep over the row-wise workloads beside
# Triton and PyTorch (bench.py shapes: vadd, bias_gelu, softmax,
# layernorm, cross-entropy at n, n+-1, n+-3, n+8 and other row counts).
# Here: scripts/gpu-bench.sh prepare (build-gpu/, at f34d049).
# Device call: run(command="bash bench/results/2026-12-05-session31-run4.sh",
#                  carry=["build-gpu"], timeout_s=590)
cd "$(dirname "$0")/../.."
export OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/s"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 150 scripts/gpu-bench.sh tests > "$OUT/tests.txt" 2>&1
echo "tests rc=$? ok=$(grep -c ' ok$' "$OUT/tests.txt")"
grep -E "FAILED|SKIPPED" "$OUT/tests.txt" | head -20
timeout 400 python3 bench/bench.py --build build-gpu --out "$OUT/s" --shapes 1d,softmax,layernorm,xent \
    shapes > "$OUT/s.log" 2>&1
echo "shapes rc=$?"
grep -E "CHECK FAILED|Traceback|Error" "$OUT/s.log" | head -10
cat "$OUT/s/shapes.md" 2>/dev/null | head -70
