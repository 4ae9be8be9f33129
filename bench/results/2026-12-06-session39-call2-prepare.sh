#!/bin/bash
# Builds build-s39b/ for session 39's call 2
# (bench/results/2026-12-06-session39-call2.sh). TILEC_PPW, TILEC_PP1 and
# TILEC_LATE are tilec built with -session39-ppw.patch, -pp1.patch and
# -late.patch applied (git apply, make tilec, copy, git checkout).
# examples/attention.tile
# with the turns as committed ("pp", --pingpong), and two variants from
# compilers patched in place and saved by the caller: TILEC_PPW (the turn
# handed on after the product's wait_group rather than after its commit;
# lower/dot.c, lw_pipe_turn(f, op, 1) moved below lw_wgmma_wait) and
# TILEC_PP1 (turns at the first product of the iteration only;
# lower/pipeline.c lw_pipe_turn tests p->plan->wg_dot[0] == dot), both
# with --pingpong; released slots (--slot-sync=mbarrier, "rel"), and
# from TILEC_LATE (lower/pipeline.c: a loop with released slots and no
# group in flight refills after its first product's wait rather than at
# the top of the iteration, each warp still releasing at the end of the
# iteration) released slots alone ("rl") and with --pingpong ("rppl");
# against the default ("cta"). ops/ and ops-nopp/:
# tests/gpu/ops/pingpong.tile with and without --pingpong, for
# compute-sanitizer racecheck; ops-late/: tma, pingpong and dot.tile
# from TILEC_LATE with released slots and turns, for the differential
# tests.
set -eu
cd "$(dirname "$0")/../.."
export TILE_STDLIB=$PWD/stdlib
o=build-s39b
rm -rf $o && mkdir -p $o/ab $o/ops/sm_90a $o/ops-nopp/sm_90a $o/ops-late/sm_90a
cp build-s39/libtile.so $o/
for v in cta pp ppw pp1 rel rl rppl; do
    tc=./tilec; fl=--pingpong
    case $v in
    cta) fl="" ;;
    ppw) tc=$TILEC_PPW ;;
    pp1) tc=$TILEC_PP1 ;;
    rel) fl=--slot-sync=mbarrier ;;
    rl) tc=$TILEC_LATE; fl=--slot-sync=mbarrier ;;
    rppl) tc=$TILEC_LATE; fl="--slot-sync=mbarrier --pingpong" ;;
    esac
    for cfg in "64 false 128 64 2" "64 true 128 64 2" "128 false 128 128 2" "128 true 128 128 2"; do
        set -- $cfg
        c=""; [ $2 = true ] && c=-causal
        # shellcheck disable=SC2086
        $tc --arch=sm_90a $fl -D D=$1 -D CAUSAL=$2 -D BM=$3 -D BN=$4 -D warps=8 -D stages=$5 \
            -o $o/ab/att-$v-D$1$c-$3x$4-s$5.tlb examples/attention.tile
    done
done
./tilec --arch=sm_90a --pingpong -o $o/ops/sm_90a/pingpong.tlb tests/gpu/ops/pingpong.tile
./tilec --arch=sm_90a -o $o/ops-nopp/sm_90a/pingpong.tlb tests/gpu/ops/pingpong.tile
for f in tma pingpong dot; do
    $TILEC_LATE --arch=sm_90a --slot-sync=mbarrier --pingpong -o $o/ops-late/sm_90a/$f.tlb \
        tests/gpu/ops/$f.tile
done
cp tests/gpu/ops/difftest $o/ops/
du -sh $o
