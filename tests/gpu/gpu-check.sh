#!/bin/sh
# gpu-check.sh — the GPU smoke test of the code generator (tests/gpu/smoke.c).
#
#   sh tests/gpu/gpu-check.sh prepare   # where tilec is built: writes build-gpu/
#   sh tests/gpu/gpu-check.sh run       # on the GPU machine (build-gpu/ there)
#   sh tests/gpu/gpu-check.sh           # both, where tilec and a GPU meet
#
# prepare compiles examples/vadd.tile and examples/softmax.tile (BLOCK=1024
# and BLOCK=4096) to PTX for sm_90 with the built tilec ($TILEC, default
# ./tilec) and builds the driver-API test program (needs cuda.h: $CUDA_INC,
# default /usr/local/cuda/include). run executes it: exit 0 pass, 1 fail,
# 77 no GPU (or nothing prepared).
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
out="$here/build-gpu"
arch=${ARCH:-sm_90}

prepare() {
    tilec=${TILEC:-$here/tilec}
    mkdir -p "$out"
    export TILE_STDLIB="${TILE_STDLIB:-$here/stdlib}"
    "$tilec" --arch="$arch" --emit=ptx -o "$out/vadd.ptx" "$here/examples/vadd.tile"
    for b in 1024 4096; do
        "$tilec" --arch="$arch" --emit=ptx -DBLOCK=$b -o "$out/softmax$b.ptx" \
            "$here/examples/softmax.tile"
    done
    ${CC:-cc} -O2 -std=c11 -Wall -I"${CUDA_INC:-/usr/local/cuda/include}" \
        -o "$out/smoke" "$here/tests/gpu/smoke.c" -ldl -lm
    echo "prepared $out"
}

run() {
    if [ ! -x "$out/smoke" ]; then
        echo "skip: $out/smoke not prepared (run: $0 prepare)" >&2
        exit 77
    fi
    status=0
    for b in 1024 4096; do
        "$out/smoke" "$out/vadd.ptx" "$out/softmax$b.ptx" $b || status=$?
        [ $status -eq 0 ] || break
    done
    exit $status
}

case "${1:-all}" in
prepare) prepare ;;
run) run ;;
all) prepare; run ;;
*) echo "usage: $0 [prepare|run]" >&2; exit 2 ;;
esac
