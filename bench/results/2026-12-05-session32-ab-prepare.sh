#!/bin/bash
# Builds build-s32ab/ for bench/results/2026-12-05-session32-ab.sh, in a
# built checkout with the shifted operand loads:
#   OLD=PATH bash bench/results/2026-12-05-session32-ab-prepare.sh
# OLD: tilec before them (058b468); ./tilec: this tree ("new": a product's
# operands of unknown alignment read as aligned pieces joined by shifts,
# lower/memory.c lw_load_shifted); call 5: MID=PATH, de8fe64's tilec
# ("w32": four 4-byte words and the last element), beside "new" (two
# 8-byte words and the last 2-6 bytes).
set -eu
cd "$(dirname "$0")/../.."
: "${OLD:?tilec before}"
export TILE_STDLIB=$PWD/stdlib
make -j2 tilec tests/gpu/ops/difftest >/dev/null
o=build-s32ab
rm -rf $o && mkdir -p $o/ab $o/ops/sm_90a $o/ops/sm_80 $o/ops/sm_90
scripts/gpu-bench.sh libtile $o/libtile.so >/dev/null
for sys in old new ${MID:+w32}; do
    case $sys in old) t=$OLD ;; new) t=$PWD/tilec ;; w32) t=$MID ;; esac
    for cfg in 128x256x64-w8-s3 128x128x64-w8-s4 128x128x64-w4-s3 128x128x32-w4-s4 64x128x64-w4-s3; do
        IFS=x read -r BM BN rest <<< "$cfg"
        IFS=- read -r BK W S <<< "$rest"
        $t --arch=sm_90a -D T=f16 -D BM=$BM -D BN=$BN -D BK=$BK -D warps=${W#w} -D stages=${S#s} \
            -o $o/ab/mm-$sys-$cfg.tlb examples/matmul.tile
    done
done
for a in sm_90a sm_80; do
    ./tilec --arch=$a -o $o/ops/$a/dot.tlb tests/gpu/ops/dot.tile
done
# call 3: every tests/gpu/ops file for sm_90 (as scripts/gpu-ops-check.sh)
mkdir -p $o/ops/sm_90
for f in tests/gpu/ops/*.tile; do
    # shellcheck disable=SC2046
    ./tilec --arch=sm_90 $(sed -n '1s|^// tilec: ||p' "$f") -o $o/ops/sm_90/$(basename "$f" .tile).tlb "$f"
done
cp tests/gpu/ops/difftest $o/ops/
du -sh $o
