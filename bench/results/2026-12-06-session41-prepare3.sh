#!/bin/bash
# Builds build-s41b/ for bench/results/2026-12-06-session41-gpu3.sh, in a
# built checkout: bash bench/results/2026-12-06-session41-prepare3.sh
# GEN_DIRS: gen-run.sh work directories whose g*.tile and g*.tlb (built
# for sm_90a with TILEC_FLAGS=--tma-store) difftest runs on the GPU.
# mm/: examples/matmul.tile 128x256x64 w8, f16 and bf16, 3 and 4 stages,
# each plain and with --tma-store; ab/: examples/attention.tile at the
# tiles session 39 found best (D=64: 128x64, 2 stages; D=128: 128x128,
# 2 stages; causal and not), plain and with --tma-store; ops/sm_90a:
# tmastore.tile, and tma.tile, dot.tile, persist.tile with --tma-store
# added to their own options. mm/*tsf.tlb (not built here): the same as
# *ts.tlb by commit 5749215's tilec (programs ending with a full
# cp.async.bulk.wait_group 0).
set -eu
cd "$(dirname "$0")/../.."
export TILE_STDLIB=$PWD/stdlib
make -j2 tilec tests/gpu/ops/difftest >/dev/null
o=build-s41b
rm -rf $o && mkdir -p $o/mm $o/ab $o/ops/sm_90a $o/gen
scripts/gpu-bench.sh libtile $o/libtile.so >/dev/null
for T in f16 bf16; do
    for s in 3 4; do
        t="--arch=sm_90a -D T=$T -D BM=128 -D BN=256 -D BK=64 -D warps=8 -D stages=$s"
        ./tilec $t -o $o/mm/$T-s$s.tlb examples/matmul.tile
        ./tilec $t --tma-store -o $o/mm/$T-s${s}ts.tlb examples/matmul.tile
    done
done
for v in cta ts; do
    fl=""; [ $v = ts ] && fl="--tma-store"
    for cfg in "64 false 128 64 2" "64 true 128 64 2" "128 false 128 128 2" "128 true 128 128 2"; do
        set -- $cfg
        c=""; [ $2 = true ] && c=-causal
        # shellcheck disable=SC2086
        ./tilec --arch=sm_90a $fl -D D=$1 -D CAUSAL=$2 -D BM=$3 -D BN=$4 -D warps=8 -D stages=$5 \
            -o $o/ab/att-$v-D$1$c-$3x$4-s$5.tlb examples/attention.tile
    done
done
./tilec --arch=sm_90a --tma-store -o $o/ops/sm_90a/tmastore.tlb tests/gpu/ops/tmastore.tile
for f in tma dot persist; do
    # shellcheck disable=SC2046
    ./tilec --arch=sm_90a --tma-store $(sed -n '1s|^// tilec: ||p' tests/gpu/ops/$f.tile) \
        -o $o/ops/sm_90a/$f.tlb tests/gpu/ops/$f.tile
done
for g in ${GEN_DIRS:-}; do
    cp "$g"/g*.tile "$g"/g*.tlb $o/gen/
done
cp tests/gpu/ops/difftest $o/
du -sh $o
