#!/bin/bash
# Builds build-s40/ for bench/results/2026-12-06-session40-gpu.sh, in a
# built checkout: TILEC_PPA=... bash bench/results/2026-12-06-session40-prepare.sh
# TILEC_PPA: a tilec whose lower/pingpong.c lw_pingpong_end arrives
# (bar.arrive) rather than waits (bench/results/2026-12-06-session40-ppa.patch).
# mm/: examples/matmul.tile f16 128x256x64 w8 (s3, s4, --persistent s4)
# and session40-mmlim.tile s3 (its store masked by `lim`); ops-ppa/:
# pingpong.tile and tma.tile with TILEC_PPA's turns; cluster.cubin: a
# cluster of two launched by plain cuLaunchKernel.
set -eu
cd "$(dirname "$0")/../.."
export TILE_STDLIB=$PWD/stdlib
make -j2 tilec tests/gpu/ops/difftest >/dev/null
o=build-s40
rm -rf $o && mkdir -p $o/mm $o/ops-ppa/sm_90a
scripts/gpu-bench.sh libtile $o/libtile.so >/dev/null
t="--arch=sm_90a -D T=f16 -D BM=128 -D BN=256 -D BK=64 -D warps=8"
./tilec $t -D stages=3 -o $o/mm/s3.tlb examples/matmul.tile
./tilec $t -D stages=4 -o $o/mm/s4.tlb examples/matmul.tile
./tilec $t -D stages=4 --persistent -o $o/mm/pers4.tlb examples/matmul.tile
./tilec $t -D stages=3 -o $o/mm/lim.tlb bench/results/2026-12-06-session40-mmlim.tile
for f in pingpong tma; do
    $TILEC_PPA --arch=sm_90a --pingpong $(sed -n '1s|^// tilec: ||p' tests/gpu/ops/$f.tile | sed 's/--pingpong//') \
        -o $o/ops-ppa/sm_90a/$f.tlb tests/gpu/ops/$f.tile
done
cp tests/gpu/ops/difftest $o/
for x in cluster multicast; do /usr/local/cuda/bin/ptxas -arch=sm_90a bench/results/2026-12-06-session40-$x.ptx -o $o/$x.cubin; done
du -sh $o
