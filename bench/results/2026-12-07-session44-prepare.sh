#!/bin/bash
# Builds build-s44/ for bench/results/2026-12-07-session44-gpu.sh, in a
# built checkout with -session44-hint.patch applied (not kept: the hint
# measured level, docs/PERF.md session 44), given OLD_TILEC: the
# tilec of adefbe5 (session 43's last), whose TMA loops poll their
# mbarriers with `mbarrier.try_wait` and no suspend-time hint:
#   bash bench/results/2026-12-07-session44-prepare.sh OLD_TILEC
# ab/: examples/matmul.tile f16 (mm-V-f16-BMxBNxBK-wW-sS[-p]),
# bench/kernels/matmul_f8.tile (f8-V-...), examples/attention.tile
# (att-V-D..-...), V one of
#   hint    this tilec (polls with a 10 ms suspend-time hint)
#   nohint  OLD_TILEC
#   relh    this tilec, --slot-sync=mbarrier (slots released, hint)
#   rel     OLD_TILEC, --slot-sync=mbarrier (session 38's form)
# ops/: the differential tests' bundles of this tilec for sm_90a (and
# the bug hunt's files where present, but hunt_shape's 22 MB: the carry
# holds 64 MiB); difftest.
set -eu
cd "$(dirname "$0")/../.."
old=${1:?usage: $0 OLD_TILEC}
export TILE_STDLIB=$PWD/stdlib
make -j2 tilec tests/gpu/ops/difftest >/dev/null
o=build-s44
rm -rf $o && mkdir -p $o/ab $o/ops/sm_90a
scripts/gpu-bench.sh libtile $o/libtile.so >/dev/null
for v in hint nohint relh rel; do
    tc=./tilec; fl=""
    case $v in nohint|rel) tc=$old ;; esac
    case $v in relh|rel) fl=--slot-sync=mbarrier ;; esac
    for cfg in "128 256 64 8 3" "128 256 64 8 4" "128 128 64 8 4" "128 256 64 8 3 p"; do
        set -- $cfg
        p=""; pf=""; [ "${6:-}" = p ] && { p=-p; pf=--persistent; }
        # shellcheck disable=SC2086
        $tc --arch=sm_90a $fl $pf -D T=f16 -D BM=$1 -D BN=$2 -D BK=$3 -D warps=$4 -D stages=$5 \
            -o $o/ab/mm-$v-f16-$1x$2x$3-w$4-s$5$p.tlb examples/matmul.tile
    done
    # shellcheck disable=SC2086
    $tc --arch=sm_90a $fl -D BM=128 -D BN=256 -D BK=128 -D warps=8 -D stages=3 \
        -o $o/ab/f8-$v-128x256x128-w8-s3.tlb bench/kernels/matmul_f8.tile
    for cfg in "64 false 128 64 2" "64 true 128 64 2" "128 false 128 128 2" "128 true 128 128 2"; do
        set -- $cfg
        c=""; [ $2 = true ] && c=-causal
        # shellcheck disable=SC2086
        $tc --arch=sm_90a $fl -D D=$1 -D CAUSAL=$2 -D BM=$3 -D BN=$4 -D warps=8 -D stages=$5 \
            -o $o/ab/att-$v-D$1$c-$3x$4-s$5.tlb examples/attention.tile
    done
done
for t in tests/gpu/ops/*.tile; do
    f=$(basename "$t" .tile)
    [ "$f" = hunt_shape ] && continue
    # shellcheck disable=SC2046
    ./tilec --arch=sm_90a $(sed -n '1s|^// tilec: ||p' "$t") -o $o/ops/sm_90a/$f.tlb "$t"
done
cp tests/gpu/ops/difftest $o/ops/
du -sh $o
