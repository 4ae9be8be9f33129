#!/usr/bin/env bash
# compile_time.sh — Tile's compile time of one configuration of softmax,
# measured where tilec runs (it needs LLVM 22; the GPU machine has none).
#
#   bench/compile_time.sh TILEC SOURCE OUT.tsv [RUNS]
#
# SOURCE is a source with one configuration once BLOCK=1024 is given
# (scripts/gpu-bench.sh prepare passes build-gpu/bench/src/softmax_f32_1024_w4.tile:
# f32, BLOCK=1024 given here with -D, 4 warps: one configuration, two
# variants). Each measure is the wall time of a whole tilec process, the
# median of RUNS (default 11) runs after one warm-up run:
#   - to PTX (--emit=ptx): parse, sema, layouts, LLVM, NVPTX codegen;
#   - to a bundle (-o x.tlb): the same plus ptxas for the sm_90 cubin,
#     when ptxas is installed.
# Triton's figure (first call of a fresh kernel, empty cache) is measured
# by bench/bench.py on the GPU machine. The TSV (what, ms, note) is read by
# bench.py, which puts these rows in its table.
set -eu
tilec=${1:?usage: compile_time.sh TILEC SOURCE OUT.tsv [RUNS]}
src=${2:?usage}
out=${3:?usage}
runs=${4:-11}
here=$(cd "$(dirname "$0")/.." && pwd)
export TILE_STDLIB=${TILE_STDLIB:-$here/stdlib}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median_ms() {   # median_ms CMD...: median wall time in ms of RUNS runs
    "$@" > /dev/null
    for _ in $(seq "$runs"); do
        local t0 t1
        t0=$(date +%s%N)
        "$@" > /dev/null
        t1=$(date +%s%N)
        echo $(( (t1 - t0) / 1000 ))
    done | sort -n | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] / 1000 }'
}

host="$(nproc) cores, $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
ptx=$(median_ms "$tilec" --arch=sm_90 -D BLOCK=1024 --emit=ptx -o "$tmp/k.ptx" "$src")
tlb=$(median_ms "$tilec" --arch=sm_90 -D BLOCK=1024 -o "$tmp/k.tlb" "$src")
{
    printf 'what\tms\tnote\n'
    printf 'tile: tilec to PTX\t%s\tmedian of %s runs, one config, all its variants; build machine: %s\n' "$ptx" "$runs" "$host"
    printf 'tile: tilec to bundle (PTX + ptxas cubin)\t%s\tmedian of %s runs; build machine: %s\n' "$tlb" "$runs" "$host"
} > "$out"
cat "$out"
