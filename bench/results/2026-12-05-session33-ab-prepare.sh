#!/bin/bash
# Builds build-s33/ for bench/results/2026-12-05-session33-ab.sh (tilec
# --row-tma on a GPU), in a built checkout:
#   bash bench/results/2026-12-05-session33-ab-prepare.sh
# rowtma: the stand-alone check of TMA row copies (-session33-rowtma.cu,
# nvcc here); ab/: examples/matmul.tile f16 per tile without ("old") and
# with ("new") --row-tma, read by -session32-ab.py; ops/: the
# differential tests' bundles for sm_90a (rowtma.tile, tma.tile, dot.tile
# as check.sh builds them).
# (Session 34 withdrew tilec --row-tma: with today's tilec this script
# stops at its first "new" bundle; it ran as written before 043fff0.)
set -eu
cd "$(dirname "$0")/../.."
export TILE_STDLIB=$PWD/stdlib
make -j2 tilec tests/gpu/ops/difftest >/dev/null
o=build-s33
rm -rf $o && mkdir -p $o/ab $o/ops/sm_90a
/usr/local/cuda/bin/nvcc -O2 -arch=sm_90a -o $o/rowtma bench/results/2026-12-05-session33-rowtma.cu \
    -L/usr/local/cuda/lib64/stubs -lcuda
scripts/gpu-bench.sh libtile $o/libtile.so >/dev/null
for sys in old new; do
    flag=; [ $sys = new ] && flag=--row-tma
    for cfg in 128x128x64-w4-s3 128x256x64-w8-s3 128x128x64-w8-s4 64x128x64-w4-s3 128x128x64-w4-s4; do
        IFS=x read -r BM BN rest <<< "$cfg"
        IFS=- read -r BK W S <<< "$rest"
        ./tilec --arch=sm_90a $flag -D T=f16 -D BM=$BM -D BN=$BN -D BK=$BK -D warps=${W#w} \
            -D stages=${S#s} -o $o/ab/mm-$sys-$cfg.tlb examples/matmul.tile
    done
done
for f in rowtma tma dot; do
    # shellcheck disable=SC2046
    ./tilec --arch=sm_90a $(sed -n '1s|^// tilec: ||p' tests/gpu/ops/$f.tile) \
        -o $o/ops/sm_90a/$f.tlb tests/gpu/ops/$f.tile
done
cp tests/gpu/ops/difftest $o/ops/
du -sh $o
