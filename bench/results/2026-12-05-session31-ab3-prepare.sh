#!/bin/bash
# Builds build-s31ab3/ for bench/results/2026-12-05-session31-ab3.sh (call 6;
# the realign ops file built by SW, not main), in a
# built checkout of main at the packed-mask change:
#   OLD=PATH SW=PATH bash bench/results/2026-12-05-session31-ab2-prepare.sh
# OLD: tilec of ee9a0b0 (before session 31); ./tilec: main ("main": one
# phi of words per realigned group, realigned accesses' masks packed 32
# bits a word); SW: branch wip/shift-way's compiler with main's packed
# masks ("sw": layernorm (call 6: its loads issued for every group before the tests)'s rows rotated beside weights loaded the shift way).
set -eu
cd "$(dirname "$0")/../.."
: "${OLD:?tilec before}" "${SW:?tilec of wip/shift-way with packed masks}"
export TILE_STDLIB=$PWD/stdlib
make -j2 tilec tests/gpu/ops/difftest >/dev/null
o=build-s31ab3
rm -rf $o && mkdir -p $o/ab $o/ops
scripts/gpu-bench.sh libtile $o/libtile.so >/dev/null
sed 's/@warps(4)/@warps(8)/' bench/kernels/layernorm.tile > $o/bl.tile
sed 's/@warps(4)/@warps(8)/' bench/kernels/softmax.tile > $o/sm.tile
for sys in old main sw; do
    case $sys in old) t=$OLD ;; sw) t=$SW ;; main) t=$PWD/tilec ;; esac
    for B in 4096 8192; do
        $t --arch=sm_90a -D T=f16 -D BLOCK=$B -o $o/ab/ln-$sys-b$B.tlb $o/bl.tile
        $t --arch=sm_90a -D T=f16 -D BLOCK=$B -D warps=8 -o $o/ab/exln-$sys-b$B.tlb examples/layernorm.tile
        $t --arch=sm_90a -D T=f32 -D BLOCK=$B -o $o/ab/sm-$sys-b$B.tlb $o/sm.tile
    done
    $t --arch=sm_90a -D T=bf16 -D BLOCK=4096 -o $o/ab/smbf-$sys-b4096.tlb $o/sm.tile
    $t --arch=sm_90a -D T=f32 -D BLOCK=4096 -D warps=8 -o $o/ab/xent-$sys.tlb examples/cross_entropy.tile
done
"$SW" --arch=sm_90 -o $o/ops/realign.tlb tests/gpu/ops/realign.tile
cp tests/gpu/ops/difftest $o/ops/
du -sh $o
