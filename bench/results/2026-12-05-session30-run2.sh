#!/bin/bash
# Session 30, device call 2: the tensor-core rows of the benchmark beside
# Triton, PyTorch, cuBLAS and cuDNN in one process each, for two builds of
# the same bundles: build-s30/b (tilec's defaults) and build-s30/f (tilec
# --persistent --early-products: persistent programs where a kernel
# computes a tile per program, the first product issued one iteration
# ahead where a TMA loop of 3 stages or more has two).
#
# Here, in a built tree (after scripts/gpu-bench.sh prepare):
#   printf '#!/bin/sh\nexec %s/tilec --persistent --early-products "$@"\n' $PWD > /tmp/tilec-flags
#   chmod +x /tmp/tilec-flags
#   TILE_STDLIB=$PWD/stdlib python3 bench/build_bundles.py /tmp/tilec-flags /tmp/bf --arch sm_90a
#   mkdir -p build-s30/b/bench build-s30/f/bench
#   cp build-gpu/libtile.so build-s30/b/; cp build-gpu/libtile.so build-s30/f/
#   for p in matmul_ mm_bias_relu_ linear_relu_ attention_ mm_f8_; do
#       cp build-gpu/bench/$p*.tlb build-s30/b/bench/; cp /tmp/bf/$p*.tlb build-s30/f/bench/; done
# Device call: run(command="bash bench/results/2026-12-05-session30-run2.sh",
#                  carry=["build-s30"], timeout_s=590)
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for v in b f; do
    mkdir -p "$out/$v"
    timeout 270 python3 bench/bench.py --build build-s30/$v --out "$out/$v" matmul mm_bias_relu \
        attention fp8mm > "$out/$v.log" 2>&1
    echo "bench $v rc=$?"
done
grep -E "CHECK FAILED|Traceback|Error" "$out"/b.log "$out"/f.log | head -10
for v in b f; do echo "== $v"; grep -E "matmul|mm_bias|attention|fp8|f8" "$out/$v/bench.md" | head -40; done
