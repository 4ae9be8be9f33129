#!/bin/bash
# Builds build-s35/ for bench/results/2026-12-06-session35-gpu.sh, in a
# built checkout: bash bench/results/2026-12-06-session35-prepare.sh OLD_TILEC [OLD_PTRS_TLB]
# nt/: examples/matmul.tile f16 128x256x64 w8 with TMA rings (tma: 3
# stages) and cp.async rings (--no-tma: notma 3 stages, notma4 4), read by
# -session35-stride.py; ptrs-new.tlb: -session34-ptrs.tile (pointers
# stepped by the loop) with this tree's tilec (TMA rings), beside
# OLD_PTRS_TLB (default build-s33/ptrs-new.tlb: c4323e1's, cp.async
# rings), read by -session35-ptrs.py; {old,new}-{f32,f16}.tlb:
# examples/torch/mlp.tile (matmul_strided) at one tile each, by OLD_TILEC
# (8d6f419's) and this tree's, read by -session35-strided.py; ops/: the
# differential tests' bundles for sm_90a (induction, styles, splitk, tma).
set -eu
cd "$(dirname "$0")/../.."
export TILE_STDLIB=$PWD/stdlib
make -j2 tilec tests/gpu/ops/difftest >/dev/null
o=build-s35
old_tilec=$1
old=${2:-build-s33/ptrs-new.tlb}
rm -rf $o && mkdir -p $o/nt $o/ops/sm_90a
scripts/gpu-bench.sh libtile $o/libtile.so >/dev/null
mm="-D T=f16 -D BM=128 -D BN=256 -D BK=64 -D warps=8"
./tilec --arch=sm_90a $mm -D stages=3 -o $o/nt/tma.tlb examples/matmul.tile
./tilec --arch=sm_90a --no-tma $mm -D stages=3 -o $o/nt/notma.tlb examples/matmul.tile
./tilec --arch=sm_90a --no-tma $mm -D stages=4 -o $o/nt/notma4.tlb examples/matmul.tile
cp "$old" $o/ptrs-old.tlb
./tilec --arch=sm_90a -o $o/ptrs-new.tlb bench/results/2026-12-05-session34-ptrs.tile
f32="-D T=f32 -D BM=128 -D BN=256 -D BK=32 -D warps=8 -D stages=4"
f16="-D T=f16 -D BM=128 -D BN=256 -D BK=64 -D warps=8 -D stages=3"
for t in f32 f16; do
    "$old_tilec" --arch=sm_90a ${!t} -o $o/old-$t.tlb examples/torch/mlp.tile
    ./tilec --arch=sm_90a ${!t} -o $o/new-$t.tlb examples/torch/mlp.tile
done
for f in induction styles splitk tma; do
    # shellcheck disable=SC2046
    ./tilec --arch=sm_90a $(sed -n '1s|^// tilec: ||p' tests/gpu/ops/$f.tile) \
        -o $o/ops/sm_90a/$f.tlb tests/gpu/ops/$f.tile
done
cp tests/gpu/ops/difftest $o/ops/
du -sh $o
