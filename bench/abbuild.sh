#!/bin/bash
# abbuild.sh — the bundles of an A/B call on the GPU machine, built here
# (a built checkout; LLVM and ptxas at hand), for bench/abvariants.py and
# bench/abcheck.sh there:
#
#   bash bench/abbuild.sh OUT [options] [VARIANT=FLAGS ...]
#     --mm "BM BN BK STAGES;..."   examples/matmul.tile f16 tiles, 8 warps
#                                  (default "128 256 64 3;128 256 64 4")
#     --att "D BN STAGES;..."      examples/attention.tile, 128-row blocks,
#                                  8 warps, causal and not (default
#                                  "64 64 2;64 128 2;128 128 2"; "" none)
#     --ops "FILE ..."             tests/gpu/ops files for sm_90a, each with
#                                  its `// tilec:` options (default none)
#     --add                        add to an OUT an earlier call built (its
#                                  bundles and libtile.so kept): variants
#                                  with other --mm/--att tiles in one OUT
#     VARIANT=FLAGS                a variant named VARIANT built with tilec
#                                  FLAGS ("last=" is the default build)
# TILEC (default ./tilec) builds them: another build of tilec for a
# variant of the compiler itself.
#
# OUT/ab/mm-VARIANT-f16-BMxBNxBK-w8-sS.tlb and att-VARIANT-DD[-causal]-
# 128xBN-sS.tlb (abvariants.py's names), OUT/ops/sm_90a/FILE.tlb with
# OUT/ops/difftest, and OUT/libtile.so. Carry OUT (the device tool's
# limit is 64 MiB with the working tree). Session scripts call this
# rather than repeating it (bench/results/*-prepare.sh before session 46
# spelled it out each time).
set -eu
out=$1; shift
mm="128 256 64 3;128 256 64 4" att="64 64 2;64 128 2;128 128 2" ops="" add=0
while [ $# -gt 0 ]; do
    case $1 in
    --mm) mm=$2; shift 2 ;;
    --att) att=$2; shift 2 ;;
    --ops) ops=$2; shift 2 ;;
    --add) add=1; shift ;;
    *=*) break ;;
    *) echo "abbuild.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
cd "$(dirname "$0")/.."
export TILE_STDLIB=$PWD/stdlib
make -j2 tilec tests/gpu/ops/difftest >/dev/null
tilec=${TILEC:-./tilec}
[ $add = 1 ] || rm -rf "$out"
mkdir -p "$out/ab" "$out/ops/sm_90a"
[ -f "$out/libtile.so" ] || scripts/gpu-bench.sh libtile "$out/libtile.so" >/dev/null
for spec in "$@"; do
    v=${spec%%=*} fl=${spec#*=}
    IFS=';' read -ra tiles <<< "$mm"
    for cfg in "${tiles[@]}"; do
        [ -n "$cfg" ] || continue
        set -- $cfg
        # shellcheck disable=SC2086
        $tilec --arch=sm_90a $fl -D T=f16 -D BM=$1 -D BN=$2 -D BK=$3 -D warps=8 -D stages=$4 \
            -o "$out/ab/mm-$v-f16-$1x$2x$3-w8-s$4.tlb" examples/matmul.tile
    done
    IFS=';' read -ra tiles <<< "$att"
    for cfg in "${tiles[@]}"; do
        [ -n "$cfg" ] || continue
        set -- $cfg
        for causal in false true; do
            c=""; [ $causal = true ] && c=-causal
            # shellcheck disable=SC2086
            $tilec --arch=sm_90a $fl -D D=$1 -D CAUSAL=$causal -D BM=128 -D BN=$2 -D warps=8 \
                -D stages=$3 -o "$out/ab/att-$v-D$1$c-128x$2-s$3.tlb" examples/attention.tile
        done
    done
done
for f in $ops; do
    t=tests/gpu/ops/$f.tile
    # shellcheck disable=SC2046
    $tilec --arch=sm_90a $(sed -n '1s|^// tilec: ||p' "$t") -o "$out/ops/sm_90a/$f.tlb" "$t"
done
cp tests/gpu/ops/difftest "$out/ops/"
du -sh "$out"
