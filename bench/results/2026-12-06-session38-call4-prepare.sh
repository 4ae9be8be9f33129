#!/bin/bash
# Builds build-s38b/ for session 38's call 4, in a built checkout:
#   bash bench/results/2026-12-06-session38-call4-prepare.sh OLD_TILEC
# (OLD_TILEC: 58e33f2's tilec; ./tilec: this tree with
# bench/results/2026-12-06-session38-call4-topfree.patch applied, which
# was not kept.) A product loop whose rings are all TMA's
# and whose wgmma group stays in flight crossing one CTA barrier an
# iteration (the one before the refill; "top": this tree's tilec, the
# barrier after the wait dropped) against two (OLD_TILEC: "cta"):
# ab/ mm-{top,cta}-T-... (examples/matmul.tile f16, bf16) and
# f8-{top,cta}-... (bench/kernels/matmul_f8.tile), read by
# -session38-ab.py with NEW=top OLD=cta; ops/: the differential tests'
# bundles for sm_90a built by this tree's tilec.
# Device call: run(command="bash bench/results/2026-12-06-session38-call4.sh", carry=["build-s38b"])
set -eu
cd "$(dirname "$0")/../.."
export TILE_STDLIB=$PWD/stdlib
old=$1
make -j2 tilec tests/gpu/ops/difftest >/dev/null
o=build-s38b
rm -rf $o && mkdir -p $o/ab $o/ops/sm_90a
scripts/gpu-bench.sh libtile $o/libtile.so >/dev/null
for v in top cta; do
    t=./tilec; [ $v = cta ] && t=$old
    for ty in f16 bf16; do
        for cfg in "128 256 64 8 3" "128 256 64 8 4" "128 128 64 8 4"; do
            set -- $cfg
            $t --arch=sm_90a -D T=$ty -D BM=$1 -D BN=$2 -D BK=$3 -D warps=$4 -D stages=$5 \
                -o $o/ab/mm-$v-$ty-$1x$2x$3-w$4-s$5.tlb examples/matmul.tile
        done
    done
    for cfg in "128 256 128 8 3" "128 128 128 8 4"; do
        set -- $cfg
        $t --arch=sm_90a -D BM=$1 -D BN=$2 -D BK=$3 -D warps=$4 -D stages=$5 \
            -o $o/ab/f8-$v-$1x$2x$3-w$4-s$5.tlb bench/kernels/matmul_f8.tile
    done
done
for f in dot induction styles splitk persist user; do
    # shellcheck disable=SC2046
    ./tilec --arch=sm_90a $(sed -n '1s|^// tilec: ||p' tests/gpu/ops/$f.tile) \
        -o $o/ops/sm_90a/$f.tlb tests/gpu/ops/$f.tile
done
cp tests/gpu/ops/difftest $o/ops/
du -sh $o
