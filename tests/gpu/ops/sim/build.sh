#!/bin/sh
# build.sh — builds the simulated-warps libraries difftest -x loads: the
# steps shared by tests/gpu/ops/check.sh and tests/fuzz/gen-run.sh.
#
#   build.sh tools                   exit 0 when the tools are at hand
#                                    (llc with an x86-64 target, a C
#                                    compiler, python3), else 1
#   build.sh lib SIMDIR              SIMDIR/warpsim.o and SIMDIR/half.o
#   build.sh kernel SIMDIR FILE.tile [ARCH] [NAME]
#                                    SIMDIR/NAME.so (NAME defaults to
#                                    FILE's base name): FILE's lowered
#                                    LLVM IR (tilec --emit=llvm --arch=ARCH,
#                                    default sm_90) rebuilt for the host by
#                                    x86.py and llc, linked with the
#                                    warpsim.o and half.o of SIMDIR/..
#                                    or SIMDIR (the first that has them)
#   build.sh ll SIMDIR FILE.ll [NAME]
#                                    SIMDIR/NAME.so from LLVM IR for the
#                                    GPU (tilec's, edited, or
#                                    sim/wgmma.ll's hand-written forms):
#                                    kernel's steps after tilec
#
# Environment: TILE_SRCDIR (the source tree; default: four levels up
# from this script: tests/gpu/ops/sim), TILEC (default ./tilec),
# TILEC_FLAGS (more tilec options, e.g. --tma; default none), LLVM_BIN (default
# /usr/lib/llvm-22/bin), CC (default cc). Any step failing exits non-zero
# with the tool's message on standard error; the intermediate files
# (.ll, .host.ll, .o) stay beside the .so for inspection.
set -eu
src=${TILE_SRCDIR:-$(cd "$(dirname "$0")/../../../.." && pwd)}
tilec=${TILEC:-./tilec}
tilec_flags=${TILEC_FLAGS:-}
llc=${LLVM_BIN:-/usr/lib/llvm-22/bin}/llc
cc=${CC:-cc}

# host_so SIMDIR FILE.ll NAME: FILE.ll rebuilt for the host (x86.py, llc)
# and linked with the warpsim.o and half.o of SIMDIR/.. or SIMDIR into
# SIMDIR/NAME.so
host_so() {
    lib=$1
    [ -f "$lib/warpsim.o" ] || lib=$1/..
    python3 "$src/tests/gpu/ops/sim/x86.py" "$2" "$1/$3.host.ll"
    "$llc" -O0 -relocation-model=pic -filetype=obj "$1/$3.host.ll" -o "$1/$3.o"
    # shellcheck disable=SC2086
    $cc -shared -o "$1/$3.so" "$1/$3.o" "$lib/warpsim.o" "$lib/half.o" -lpthread -lm
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
tools)
    [ -x "$llc" ] && command -v "$cc" >/dev/null 2>&1 &&
        command -v python3 >/dev/null 2>&1 || exit 1
    "$llc" --version | grep -q x86-64 || exit 1
    ;;
lib)
    d=$1
    mkdir -p "$d"
    # shellcheck disable=SC2086
    $cc -std=c11 -O1 -fPIC -ffp-contract=off -I"$src" -c "$src/tests/gpu/ops/sim/warpsim.c" \
        -o "$d/warpsim.o"
    # (its bf16 rounding is the C references')
    # shellcheck disable=SC2086
    $cc -std=c11 -O1 -fPIC -I"$src" -c "$src/examples/ref/half.c" -o "$d/half.o"
    ;;
kernel)
    d=$1 f=$2 arch=${3:-sm_90}
    b=${4:-$(basename "$f" .tile)}
    mkdir -p "$d"
    # shellcheck disable=SC2086
    "$tilec" --arch="$arch" $tilec_flags --emit=llvm -o "$d/$b.ll" "$f"
    host_so "$d" "$d/$b.ll" "$b"
    ;;
ll)
    d=$1 f=$2
    b=${3:-$(basename "$f" .ll)}
    mkdir -p "$d"
    host_so "$d" "$f" "$b"
    ;;
*)
    echo "usage: $0 tools | lib SIMDIR | kernel SIMDIR FILE.tile [ARCH] [NAME] | ll SIMDIR FILE.ll [NAME]" >&2
    exit 2
    ;;
esac
