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
# BLOCK 4096 and 8192 w8 for -session47-rows.py. With OLD_TILEC set
# (OLD_TILEC=PATH bash ...-prepare.sh: the compiler before this session's
# split loads, as in the header of -session47-ln.py), build-s47/ln/ too;
# with NAT_TILEC (this tree with -session47-nat.patch) its `nat` bundles.
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
# rows beside weights: build-s47/ln/ for -session47-ln.py, each bundle by
# OLD_TILEC (the compiler before the split loads, 7c02d52; default: none,
# which skips this part) and by ./tilec --split-loads; the differential
# tests' bundles of realign, user and split (--split-loads) by ./tilec
if [ -n "${OLD_TILEC:-}" ]; then
    mkdir -p build-s47/ln
    for v in old new ${NAT_TILEC:+nat}; do
        tc="./tilec --split-loads"; [ $v = old ] && tc=$OLD_TILEC
        [ $v = nat ] && tc="$NAT_TILEC --split-loads"
        for block in 4096 8192; do
            $tc --arch=sm_90a -D T=f16 -D BLOCK=$block -D warps=8 \
                -o build-s47/ln/$v-layernorm-$block-w8.tlb bench/kernels/layernorm.tile
        done
        [ $v = old ] && $tc --arch=sm_90a -D T=f16 -D BLOCK=8192 -D warps=16 \
            -o build-s47/ln/old-layernorm-8192-w16.tlb bench/kernels/layernorm.tile
        for w in 4 8; do
            $tc --arch=sm_90a -D T=f16 -D BLOCK=1024 -D warps=$w \
                -o build-s47/ln/$v-addln-1024-w$w.tlb examples/layernorm.tile
        done
    done
    bash bench/abbuild.sh build-s47 --add --mm "" --att "" --ops "realign user split" >/dev/null
fi
du -sh build-s47
