#!/bin/bash
# Builds build-s38/ for bench/results/2026-12-06-session38-gpu.sh, in a
# built checkout: bash bench/results/2026-12-06-session38-prepare.sh
# Session 38: TMA loops whose slots are released through mbarriers
# (tilec --slot-sync=mbarrier: "rel"; the default when the call ran)
# against the CTA barrier an iteration (--slot-sync=cta, now the
# default: "cta"), the same compiler. ab/: examples/matmul.tile f16 and bf16
# (mm-{rel,cta}-T-BMxBNxBK-wW-sS), bench/kernels/matmul_f8.tile
# (f8-{rel,cta}-...), examples/attention.tile (att-{rel,cta}-D..-...);
# ops/: the differential tests' bundles for sm_90a.
set -eu
cd "$(dirname "$0")/../.."
export TILE_STDLIB=$PWD/stdlib
make -j2 tilec tests/gpu/ops/difftest >/dev/null
o=build-s38
rm -rf $o && mkdir -p $o/ab $o/ops/sm_90a
scripts/gpu-bench.sh libtile $o/libtile.so >/dev/null
for v in rel cta; do
    fl=--slot-sync=mbarrier; [ $v = cta ] && fl=--slot-sync=cta
    for t in f16 bf16; do
        for cfg in "128 256 64 8 3" "128 256 64 8 4" "128 128 64 8 4"; do
            set -- $cfg
            ./tilec --arch=sm_90a $fl -D T=$t -D BM=$1 -D BN=$2 -D BK=$3 -D warps=$4 -D stages=$5 \
                -o $o/ab/mm-$v-$t-$1x$2x$3-w$4-s$5.tlb examples/matmul.tile
        done
    done
    for cfg in "128 256 128 8 3" "128 128 128 8 4"; do
        set -- $cfg
        ./tilec --arch=sm_90a $fl -D BM=$1 -D BN=$2 -D BK=$3 -D warps=$4 -D stages=$5 \
            -o $o/ab/f8-$v-$1x$2x$3-w$4-s$5.tlb bench/kernels/matmul_f8.tile
    done
    for cfg in "64 false 128 64 2" "64 true 128 64 2" "64 false 128 64 3" \
               "128 false 128 128 2" "128 true 128 128 2"; do
        set -- $cfg
        c=""; [ $2 = true ] && c=-causal
        ./tilec --arch=sm_90a $fl -D D=$1 -D CAUSAL=$2 -D BM=$3 -D BN=$4 -D warps=8 -D stages=$5 \
            -o $o/ab/att-$v-D$1$c-$3x$4-s$5.tlb examples/attention.tile
    done
done
for f in dot tma induction styles splitk persist early user; do
    # shellcheck disable=SC2046
    ./tilec --arch=sm_90a $(sed -n '1s|^// tilec: ||p' tests/gpu/ops/$f.tile) \
        -o $o/ops/sm_90a/$f.tlb tests/gpu/ops/$f.tile
done
cp tests/gpu/ops/difftest $o/ops/
du -sh $o
