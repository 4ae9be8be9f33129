#!/bin/bash
# Session 30, device call 2 — PREPARED, NOT RUN (session 30 had one
# 41-second H100 call, run 1): the tensor-core rows of the benchmark
# beside Triton, PyTorch, cuBLAS and cuDNN in one process, with the
# attention step's new 128x128 tile (bench/configs.py ATTENTION_TILES),
# and FP8 with TMA rings (not timed since session 14's cp.async rings).
# Run 1 found --persistent and --early-products slower, so this call
# times tilec's defaults only.
#
# Here, in a built tree:
#   scripts/gpu-bench.sh prepare        # build-gpu/: libtile.so, bench/*.tlb
#   mkdir -p build-s30/bench && cp build-gpu/libtile.so build-s30/ &&
#   for p in matmul_ mm_bias_relu_ linear_relu_ attention_ mm_f8_; do
#       cp build-gpu/bench/$p*.tlb build-s30/bench/; done
# Device call: run(command="bash bench/results/2026-12-05-session30-run2.sh",
#                  carry=["build-s30"], timeout_s=590)
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}
mkdir -p "$out/b"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
timeout 540 python3 bench/bench.py --build build-s30 --out "$out/b" matmul mm_bias_relu \
    attention fp8mm > "$out/b.log" 2>&1
echo "bench rc=$?"
grep -E "CHECK FAILED|Traceback|Error" "$out/b.log" | head -10
grep -E "matmul|mm_bias|attention|fp8|f8" "$out/b/bench.md" | head -60
