#!/bin/bash
# Builds build-s47/ for bench/results/2026-12-07-session47-gpu.sh, in a
# built checkout of this session's tree:
#   bash bench/results/2026-12-07-session47-prepare.sh
# (bench/abbuild.sh): examples/attention.tile (8 warps, 128-row blocks;
# D/BN/stages 64/64/3, 64/128/3, 128/64/3 and the 2-stage tiles
# 64/64/2, 64/128/2, 128/128/2; causal and not) built
#   last    by default
#   early   --early-products (the first product issued one iteration
#           ahead: 3 stages or more; at 2 stages it builds as `last`,
#           which measures the call's noise)
# tests/gpu/ops/early.tile's bundle for sm_90a; and build-s47/rows/:
# examples/transpose.tile 64x64 w4, bench/kernels/layernorm.tile f16
# BLOCK 4096 and 8192 w8 for -session47-rows.py.
set -eu
cd "$(dirname "$0")/../.."
bash bench/abbuild.sh build-s47 --mm "" \
    --att "64 64 3;64 128 3;128 64 3;64 64 2;64 128 2;128 128 2" --ops early \
    last= early=--early-products >/dev/null
mkdir -p build-s47/rows
./tilec --arch=sm_90a -D BM=64 -D BN=64 -D warps=4 -o build-s47/rows/transpose-64x64-w4.tlb \
    examples/transpose.tile
for block in 4096 8192; do
    ./tilec --arch=sm_90a -D T=f16 -D BLOCK=$block -D warps=8 \
        -o build-s47/rows/layernorm-$block-w8.tlb bench/kernels/layernorm.tile
done
du -sh build-s47
