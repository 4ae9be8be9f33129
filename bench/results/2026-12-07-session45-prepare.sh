#!/bin/bash
# Builds build-s45/ for bench/results/2026-12-07-session45-gpu.sh, in a
# built checkout of this session's tree:
#   bash bench/results/2026-12-07-session45-prepare.sh
# ab/: bench/abvariants.py's bundles — examples/matmul.tile f16 and
# examples/attention.tile at the tiles of sessions 38-44, each built
#   cta   --slot-sync=cta (a CTA barrier an iteration frees the slots)
#   last  by default (counted releases, the last warp refilling)
#   rel   --slot-sync=mbarrier (session 38's released slots)
# (call 2 ran bundles of 2fe260c, whose default was still cta and whose
# `last` was --slot-sync=last: the same PTX as these.)
# ops/: the differential tests' bundles for sm_90a; difftest.
set -eu
cd "$(dirname "$0")/../.."
export TILE_STDLIB=$PWD/stdlib
make -j2 tilec tests/gpu/ops/difftest >/dev/null
o=build-s45
rm -rf $o && mkdir -p $o/ab $o/ops/sm_90a
scripts/gpu-bench.sh libtile $o/libtile.so >/dev/null
for v in cta last rel; do
    case $v in cta) fl=--slot-sync=cta ;; last) fl="" ;; rel) fl=--slot-sync=mbarrier ;; esac
    for cfg in "128 256 64 3" "128 256 64 4" "128 128 64 4"; do
        set -- $cfg
        # shellcheck disable=SC2086
        ./tilec --arch=sm_90a $fl -D T=f16 -D BM=$1 -D BN=$2 -D BK=$3 -D warps=8 -D stages=$4 \
            -o $o/ab/mm-$v-f16-$1x$2x$3-w8-s$4.tlb examples/matmul.tile
    done
    for cfg in "64 64 2" "64 64 3" "128 128 2"; do
        set -- $cfg
        for causal in false true; do
            c=""; [ $causal = true ] && c=-causal
            # shellcheck disable=SC2086
            ./tilec --arch=sm_90a $fl -D D=$1 -D CAUSAL=$causal -D BM=128 -D BN=$2 -D warps=8 \
                -D stages=$3 -o $o/ab/att-$v-D$1$c-128x$2-s$3.tlb examples/attention.tile
        done
    done
done
for t in tests/gpu/ops/*.tile; do
    f=$(basename "$t" .tile)
    # shellcheck disable=SC2046
    ./tilec --arch=sm_90a $(sed -n '1s|^// tilec: ||p' "$t") -o $o/ops/sm_90a/$f.tlb "$t"
done
cp tests/gpu/ops/difftest $o/ops/
du -sh $o
