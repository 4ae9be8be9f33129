#!/bin/bash
# Session 31, device call 1: the GPU examples' tests (attention at D=128
# with 128-key blocks among them, added in session 30 and not yet run on a
# GPU), then the tensor-core rows of the benchmark beside Triton, PyTorch,
# cuBLAS and cuDNN in one process (session 30's prepared call 2).
# Here: scripts/gpu-bench.sh prepare (build-gpu/, 53 MiB).
# Device call: run(command="bash bench/results/2026-12-05-session31-run1.sh",
#                  carry=["build-gpu"], timeout_s=590)
cd "$(dirname "$0")/../.."
export OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/b"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 200 scripts/gpu-bench.sh tests > "$OUT/tests.txt" 2>&1
echo "tests rc=$?"
grep -E "FAILED|SKIPPED" "$OUT/tests.txt" | head -20
grep -c " ok$" "$OUT/tests.txt"
timeout 330 python3 bench/bench.py --build build-gpu --out "$OUT/b" matmul mm_bias_relu \
    attention fp8mm > "$OUT/b.log" 2>&1
echo "bench rc=$?"
grep -E "CHECK FAILED|Traceback|Error" "$OUT/b.log" | head -10
grep -E "matmul|mm_bias|attention|fp8|f8" "$OUT/b/bench.md" | head -60
