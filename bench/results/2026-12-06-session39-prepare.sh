#!/bin/bash
# Builds build-s39/ for bench/results/2026-12-06-session39-gpu.sh, in a
# built checkout: bash bench/results/2026-12-06-session39-prepare.sh
# Session 39: warpgroups taking turns at attention's two products
# (tilec --pingpong) with the slots freed by CTA barriers ("pp") or
# released through mbarriers ("rpp", --slot-sync=mbarrier), against the
# default ("cta"), the same compiler; examples/attention.tile
# (att-MODE-D..-BMxBN-sS). ops/: the differential tests' bundles for
# sm_90a.
set -eu
cd "$(dirname "$0")/../.."
export TILE_STDLIB=$PWD/stdlib
make -j2 tilec tests/gpu/ops/difftest >/dev/null
o=build-s39
rm -rf $o && mkdir -p $o/ab $o/ops/sm_90a
scripts/gpu-bench.sh libtile $o/libtile.so >/dev/null
for v in cta pp rpp; do
    case $v in
    cta) fl="" ;;
    pp) fl="--pingpong" ;;
    rpp) fl="--pingpong --slot-sync=mbarrier" ;;
    esac
    for cfg in "64 false 128 64 2" "64 true 128 64 2" "64 false 128 64 3" "64 false 128 128 2" \
               "128 false 128 128 2" "128 true 128 128 2" "128 false 128 64 2"; do
        set -- $cfg
        c=""; [ $2 = true ] && c=-causal
        # shellcheck disable=SC2086
        ./tilec --arch=sm_90a $fl -D D=$1 -D CAUSAL=$2 -D BM=$3 -D BN=$4 -D warps=8 -D stages=$5 \
            -o $o/ab/att-$v-D$1$c-$3x$4-s$5.tlb examples/attention.tile
    done
done
for f in pingpong dot tma early induction styles; do
    # shellcheck disable=SC2046
    ./tilec --arch=sm_90a $(sed -n '1s|^// tilec: ||p' tests/gpu/ops/$f.tile) \
        -o $o/ops/sm_90a/$f.tlb tests/gpu/ops/$f.tile
done
cp tests/gpu/ops/difftest $o/ops/
du -sh $o
