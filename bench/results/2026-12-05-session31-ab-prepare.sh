#!/bin/bash
# Builds build-s31ab/ for bench/results/2026-12-05-session31-ab.sh: the
# layernorm A/B of session 31 (rows rotated beside weights loaded the
# shift way), in a built checkout of branch wip/shift-way (its ./tilec is
# "new"; main kept only the "wp" change):
#   OLD=PATH WP=PATH bash bench/results/2026-12-05-session31-ab-prepare.sh
# OLD: tilec of ee9a0b0 (before); WP: main's lower/ with ee9a0b0's plan
# rule (one phi of words per group; components of two offset classes
# left alone, so no shift way); ./tilec: main ("new").
set -eu
cd "$(dirname "$0")/../.."
: "${OLD:?tilec before}" "${WP:?tilec with words phis only}"
export TILE_STDLIB=$PWD/stdlib
make -j2 tilec tests/gpu/ops/difftest >/dev/null
o=build-s31ab
rm -rf $o && mkdir -p $o/ab $o/ops
scripts/gpu-bench.sh libtile $o/libtile.so >/dev/null
sed 's/@warps(4)/@warps(8)/' bench/kernels/layernorm.tile > $o/bl.tile
for sys in old wp new; do
    case $sys in old) t=$OLD ;; wp) t=$WP ;; new) t=$PWD/tilec ;; esac
    for B in 4096 8192; do
        $t --arch=sm_90a -D T=f16 -D BLOCK=$B -o $o/ab/ln-$sys-b$B.tlb $o/bl.tile
        $t --arch=sm_90a -D T=f16 -D BLOCK=$B -D warps=8 -o $o/ab/exln-$sys-b$B.tlb examples/layernorm.tile
    done
done
./tilec --arch=sm_90 -o $o/ops/realign.tlb tests/gpu/ops/realign.tile
cp tests/gpu/ops/difftest $o/ops/
du -sh $o
