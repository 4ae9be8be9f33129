#!/bin/bash
# Session 28, device call 2: the tensor-core rows with TMA copies as the
# default, beside Triton, PyTorch, cuBLAS and cuDNN in the same process.
#
# Here: scripts/gpu-bench.sh prepare (every bench bundle; rings of wgmma
# loops filled by TMA where they can be), python3 bench/build_bundles.py
# ./tilec build-gpu/bench --arch sm_90a --sweep; build-gpu-b/ = build-gpu/bin,
# libtile.so and bench/. Carry ["build-gpu-b"], command
#   bash bench/results/2026-12-05-h200-session28-run2.sh
#
# 1. issue 13's shape sweep, its tensor-core parts (matmul n^3 and M alone
#    around 4096, the language model's head, attention S = 1000 ... 4096);
# 2. matmul f16/bf16, mm+bias+relu and attention at the bench's tiles,
#    then the sweep step (more tiles, warps and stages; Triton at each).
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}
mkdir -p "$out/shapes" "$out/main"
timeout 270 python3 bench/bench.py --build build-gpu-b --out "$out/shapes" shapes \
    --shapes matmul,lm_head,attention > "$out/shapes.log" 2>&1; echo "shapes rc=$?"
timeout 300 python3 bench/bench.py --build build-gpu-b --out "$out/main" matmul mm_bias_relu \
    attention sweep > "$out/main.log" 2>&1; echo "main rc=$?"
grep -E "CHECK FAILED|Traceback|Error" "$out/shapes.log" "$out/main.log" | head -10
cat "$out/main/bench.md" 2>/dev/null | grep -E "matmul|mm_bias|attention|sweep" | head -80
cat "$out/shapes/shapes.md" 2>/dev/null
