#!/bin/bash
# Builds build-s41/ for bench/results/2026-12-06-session41-gpu2.sh, in a
# built checkout: bash bench/results/2026-12-06-session41-prepare.sh
# mm/: examples/matmul.tile f16 128x256x64 w8 at 3 and 4 stages, each
# plain and with --tma-store, and --persistent at 3 stages (4 does not
# fit), plain and with --tma-store; lim*.tlb: session 40's
# store-masked kernels (-session40-mmlim.tile, -mmlim32.tile) for call 1's
# script; ops/sm_90a: tmastore.tile (--tma-store, its header) and
# tma.tile and dot.tile built with --tma-store added (every store of
# theirs that is a box goes through TMA).
set -eu
cd "$(dirname "$0")/../.."
export TILE_STDLIB=$PWD/stdlib
make -j2 tilec tests/gpu/ops/difftest >/dev/null
o=build-s41
rm -rf $o && mkdir -p $o/mm $o/ops/sm_90a
scripts/gpu-bench.sh libtile $o/libtile.so >/dev/null
t="--arch=sm_90a -D T=f16 -D BM=128 -D BN=256 -D BK=64 -D warps=8"
./tilec $t -D stages=3 -o $o/mm/s3.tlb examples/matmul.tile
./tilec $t -D stages=3 --tma-store -o $o/mm/s3ts.tlb examples/matmul.tile
./tilec $t -D stages=4 -o $o/mm/s4.tlb examples/matmul.tile
./tilec $t -D stages=4 --tma-store -o $o/mm/s4ts.tlb examples/matmul.tile
./tilec $t -D stages=3 --persistent -o $o/mm/p3.tlb examples/matmul.tile
./tilec $t -D stages=3 --persistent --tma-store -o $o/mm/p3ts.tlb examples/matmul.tile
./tilec $t -D stages=3 -o $o/mm/lim.tlb bench/results/2026-12-06-session40-mmlim.tile
./tilec $t -D stages=3 -o $o/mm/lim32.tlb bench/results/2026-12-06-session40-mmlim32.tile
./tilec $t -D stages=3 --persistent -o $o/mm/limp3.tlb bench/results/2026-12-06-session40-mmlim.tile
./tilec --arch=sm_90a --tma-store -o $o/ops/sm_90a/tmastore.tlb tests/gpu/ops/tmastore.tile
for f in tma dot; do
    ./tilec --arch=sm_90a --tma-store $(sed -n '1s|^// tilec: ||p' tests/gpu/ops/$f.tile) \
        -o $o/ops/sm_90a/$f.tlb tests/gpu/ops/$f.tile
done
cp tests/gpu/ops/difftest $o/
du -sh $o
