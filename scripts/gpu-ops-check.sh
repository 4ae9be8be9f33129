#!/bin/sh
# gpu-ops-check.sh — the differential GPU-vs-interpreter op test
# (tests/gpu/ops/difftest.c and the kernels in tests/gpu/ops/*.tile).
#
#   scripts/gpu-ops-check.sh prepare   # here, in a built tree: writes build-gpu-ops/
#   scripts/gpu-ops-check.sh run [-s SEED] [-k NAME]   # on the GPU machine
#
# prepare builds a bundle (sm_90 PTX and, where ptxas is, cubin) of every
# tests/gpu/ops/*.tile with the tree's tilec ($TILEC, default ./tilec) and
# copies the difftest program (built by `make check`, or
# `make tests/gpu/ops/difftest`; a static executable needing only libc and,
# at run time, libcuda.so.1) into build-gpu-ops/. run executes it from the
# source tree (the interpreter compiles the same .tile files with
# stdlib/), then compute-sanitizer memcheck over one more run when the
# tool is there. Exit: 0 pass, 1 fail, 77 no GPU.
#
# On the device machine, carrying build-gpu-ops:
#   scripts/gpu-ops-check.sh run
set -eu
cd "$(dirname "$0")/.."
out=build-gpu-ops
arch=${ARCH:-sm_90}

prepare() {
    tilec=${TILEC:-./tilec}
    [ -x tests/gpu/ops/difftest ] || make tests/gpu/ops/difftest >/dev/null
    mkdir -p "$out"
    rm -f "$out"/*.tlb
    for f in tests/gpu/ops/*.tile; do
        # a file's first line `// tilec: OPTIONS` (tma.tile: --tma), as check.sh
        # shellcheck disable=SC2046
        TILE_STDLIB=$PWD/stdlib "$tilec" --arch="$arch" $(sed -n '1s|^// tilec: ||p' "$f") \
            -o "$out/$(basename "$f" .tile).tlb" "$f"
    done
    cp tests/gpu/ops/difftest "$out/difftest"
    echo "prepared $out: $(ls "$out" | wc -l) files, $(du -sh "$out" | cut -f1)"
}

run() {
    if [ ! -x "$out/difftest" ]; then
        echo "skip: $out/difftest not prepared (run: $0 prepare)" >&2
        exit 77
    fi
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
    status=0
    TILE_STDLIB=$PWD/stdlib "$out/difftest" "$@" "$out" tests/gpu/ops/*.tile || status=$?
    if [ $status -eq 0 ] && command -v compute-sanitizer >/dev/null 2>&1; then
        echo "=== compute-sanitizer memcheck"
        TILE_STDLIB=$PWD/stdlib compute-sanitizer --tool memcheck --error-exitcode 1 \
            "$out/difftest" "$@" "$out" tests/gpu/ops/*.tile >"$out/memcheck.log" 2>&1 || status=$?
        tail -5 "$out/memcheck.log"
    fi
    exit $status
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
prepare) prepare ;;
run) run "$@" ;;
*) echo "usage: $0 prepare|run [difftest options]" >&2; exit 2 ;;
esac
