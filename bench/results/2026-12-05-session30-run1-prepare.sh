#!/bin/bash
# Builds what bench/results/2026-12-05-session30-run1.sh carries, in a
# built checkout of main (its ./tilec is "main"; prepared in session 29,
# run in session 30 without branch wip/tma-release, which did not survive):
#
#   STATIC_TILEC=PATH PTXAS=PATH \
#       bash bench/results/2026-12-05-session30-run1-prepare.sh
#
# STATIC_TILEC: main's tilec configured with --enable-static-llvm (the
# generated programs compile on the GPU machine); PTXAS: ptxas 13.5 or
# later (pip install nvidia-cuda-nvcc). Writes build-s29/ (bin/,
# libtile.so, the examples' tensor-core bundles, difftest with
# dot/tma/user/early/persist bundles, ab/ for -ab.py) and build-gpu-fuzz/.
# Then one device call:
#   run(command="bash bench/results/2026-12-05-session30-run1.sh",
#       carry=["build-s29", "build-gpu-fuzz"], timeout_s=580)
set -eu
cd "$(dirname "$0")/../.."
: "${STATIC_TILEC:?a static tilec of main}"
: "${PTXAS:?ptxas 13.5 or later}"
export TILE_STDLIB=$PWD/stdlib
main=$PWD/tilec
make -j2 tilec tests/gpu/ops/difftest >/dev/null
scripts/gpu-bench.sh prepare >/dev/null   # build-gpu/: bin/, libtile.so, examples/
rm -rf build-s29
mkdir -p build-s29/examples build-s29/ops/main build-s29/ab
cp -r build-gpu/bin build-gpu/libtile.so build-s29/
for e in matmul matmul_bf16 matmul_bias_relu bmm linear_relu attention_d64_causal; do
    cp build-gpu/examples/$e.tlb build-s29/examples/
done
cp tests/gpu/ops/difftest build-s29/
for f in dot tma user early persist; do
    # shellcheck disable=SC2046
    "$main" --arch=sm_90a $(sed -n '1s|^// tilec: ||p' tests/gpu/ops/$f.tile) \
        -o build-s29/ops/main/$f.tlb tests/gpu/ops/$f.tile
done
# matmul: main and main --persistent, two tiles (at 128x256x64 and 4
# stages the rewrite does not fit and the kernel stays as written)
for v in main pers; do
    t=$main
    f=""; [ $v = pers ] && f=--persistent
    for cfg in "128 256 64 8 3" "128 256 64 8 4" "128 128 64 8 4"; do
        set -- $cfg
        # shellcheck disable=SC2086
        "$t" --arch=sm_90a $f -DBM=$1 -DBN=$2 -DBK=$3 -Dwarps=$4 -Dstages=$5 \
            -o build-s29/ab/mm-$v-$1x$2x$3-w$4-s$5.tlb examples/matmul.tile
    done
done
# attention: main (2 and 3 stages), main --early-products
att() {   # tag tilec flags D causal BM BN warps stages
    "$2" --arch=sm_90a $3 -DD=$4 -DCAUSAL=$5 -DBM=$6 -DBN=$7 -Dwarps=$8 -Dstages=$9 \
        -o "build-s29/ab/att-$1-D$4$([ "$5" = true ] && echo -causal)-$6x$7-w$8-s$9.tlb" \
        examples/attention.tile
}
for D in 64 128; do
    for c in false true; do
        att main "$main" "" $D $c 128 64 8 2
        att main "$main" "" $D $c 128 64 8 3
        att early "$main" --early-products $D $c 128 64 8 3
        att early "$main" --early-products $D $c 128 64 8 4
        # 64 rows a program over 4 warps: more programs per SM (the
        # early form's second S tile costs 47-58 registers a thread)
        att main "$main" "" $D $c 64 64 4 3
        att early "$main" --early-products $D $c 64 64 4 3
        # 128 keys a block (the example offers 64): half the iterations,
        # twice the score registers
        att main "$main" "" $D $c 128 128 8 2
        [ $D = 64 ] && att early "$main" --early-products $D $c 128 128 8 3
    done
done
STATIC_TILEC=$STATIC_TILEC PTXAS=$PTXAS scripts/gpu-fuzz.sh prepare | grep prepared
du -sb build-s29 build-gpu-fuzz |
    awk '{s += $1; print} END {printf "carry: %d bytes (64 MiB at most, the tree included)\n", s}'
