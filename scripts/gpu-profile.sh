#!/usr/bin/env bash
# gpu-profile.sh — SASS and Nsight Compute profiles of Tile's and Triton's
# kernels, side by side, in one device call.
#
#   scripts/gpu-profile.sh prepare [STEP ...]   HERE (tilec builds): build-prof/,
#                                   i.e. build-gpu/ with the bench bundles
#                                   rebuilt with -g (line info for ncu)
#   scripts/gpu-profile.sh run [STEP ...]       THERE: profile the bench steps
#                                   (default: layernorm)
#
# `run` executes bench/bench.py with BENCH_PROFILE=1 (each system launched
# once, no timing, no torch.compile) under
#   ncu --clock-control none -k regex:KERNELS
# with the launch, occupancy, speed-of-light and warp-state sections (and,
# with PROFILE_FULL=1, memory, instruction, scheduler and source-counter
# sections: many more replays per kernel), at most PROFILE_COUNT (default
# 12) kernels whose names match PROFILE_KERNELS (default: Tile's and
# Triton's kernels of the bench steps), then writes for every profiled
# kernel its details page and its SASS source page (stall samples per
# instruction), dumps the SASS of every Tile cubin and of every kernel
# Triton compiled in the run (cuobjdump), counts opcodes per kernel
# (bench/sass_stats.py), ranks the source lines by stall samples with
# their main stall reasons (bench/ncu_lines.py: with PROFILE_FULL=1 and
# the kernels' -g line info), and packs it all into $OUT/profile.tar.gz. The
# opcode table is printed last. ncu reads hardware counters only on some
# machines (KINDS.md: Firecracker yes, gVisor no); without them the SASS
# part still runs.
set -u
cd "$(dirname "$0")/.."
top=$PWD
prof=$top/build-prof
steps_default="layernorm"

prepare() {
    set -e
    scripts/gpu-bench.sh prepare > /dev/null
    rm -rf "$prof"
    cp -r build-gpu "$prof"
    rm -rf "$prof/bench"
    # build_bundles.py calls TILEC [ARGS] SRC -o NAME.tlb: the wrapper builds
    # the bundle with -g and, beside it, NAME.cubin for cuobjdump
    cat > "$prof/tilec-g" <<WRAP
#!/usr/bin/env bash
a=("\$@"); n=\${#a[@]}; out=\${a[n-1]}; unset 'a[n-1]'
"$top/tilec" -g "\$@" && exec "$top/tilec" -g --emit=cubin "\${a[@]}" "\${out%.tlb}.cubin"
WRAP
    chmod +x "$prof/tilec-g"
    python3 bench/build_bundles.py "$prof/tilec-g" "$prof/bench" --arch sm_90 | tail -1
    rm "$prof/tilec-g"
    echo "device call: run(command=\"scripts/gpu-profile.sh run\", carry=[\"build-prof\"])"
}

run() {
    OUT=${OUT:-$prof/out}
    local w=/tmp/tile-prof
    rm -rf "$w"; mkdir -p "$w/sass" "$w/ncu"
    export TRITON_CACHE_DIR=$w/triton-cache BENCH_PROFILE=1 PYTHONUNBUFFERED=1
    local steps=${*:-$steps_default}
    local kernels=${PROFILE_KERNELS:-'regex:^(tr_)?(layernorm|softmax|bias_gelu|matmul|matmul_bias_relu|attention)'}
    local sections="--section LaunchStats --section Occupancy --section SpeedOfLight --section WarpStateStats"
    [ -n "${PROFILE_FULL:-}" ] && sections="$sections --section MemoryWorkloadAnalysis
        --section InstructionStats --section SourceCounters --section SchedulerStats --import-source yes"
    # A whole bench step under ncu with every section ran past 9 minutes
    # (2026-11-29): bound the kernels and the step list.
    ncu --clock-control none --kernel-name-base function -k "$kernels" \
        -c "${PROFILE_COUNT:-12}" $sections -o "$w/ncu/prof" -f \
        python3 bench/bench.py --build "$prof" --out "$w/bench" $steps > "$w/ncu/run.txt" 2>&1
    echo "ncu exit $? (log: ncu/run.txt)"
    if [ -f "$w/ncu/prof.ncu-rep" ]; then
        ncu --import "$w/ncu/prof.ncu-rep" --page details > "$w/ncu/details.txt" 2>&1
        ncu --import "$w/ncu/prof.ncu-rep" --page raw --csv > "$w/ncu/raw.csv" 2>&1
        ncu --import "$w/ncu/prof.ncu-rep" --page source --csv --print-source sass \
            > "$w/ncu/source-sass.csv" 2>&1
        ncu --import "$w/ncu/prof.ncu-rep" --page source --csv --print-source cuda,sass \
            > "$w/ncu/source-lines.csv" 2>&1
        python3 bench/ncu_lines.py "$w/ncu/source-lines.csv" > "$w/ncu-lines.txt" 2>&1
        grep -E "^  [A-Za-z_]|Duration|Registers Per|Achieved Occupancy|Memory Throughput|Compute \(SM\) Th|Warp Cycles Per Issued|Shared Memory Config|Dynamic Shared" \
            "$w/ncu/details.txt" | head -400 > "$w/ncu/summary.txt"
    fi
    local f
    cp "$prof"/bench/*.cubin "$w/sass/"
    find "$TRITON_CACHE_DIR" -name '*.cubin' -exec cp {} "$w/sass/" \; 2>/dev/null
    find "$TRITON_CACHE_DIR" -name '*.ptx' -exec cp {} "$w/sass/" \; 2>/dev/null
    for f in "$w"/sass/*.cubin; do
        cuobjdump --dump-sass "$f" > "${f%.cubin}.sass" 2>&1
    done
    python3 bench/sass_stats.py table "$w"/sass/*.sass > "$w/sass-stats.txt"
    tar -C "$w" -czf "$OUT/profile.tar.gz" . --exclude=triton-cache
    cp "$w/sass-stats.txt" "$OUT/" 2>/dev/null
    cp "$w/ncu/summary.txt" "$OUT/ncu-summary.txt" 2>/dev/null
    cp "$w/ncu-lines.txt" "$OUT/" 2>/dev/null
    cat "$w/sass-stats.txt"
}

mode=${1:-run}
[ $# -gt 0 ] && shift
case $mode in
prepare) prepare ;;
run) run "$@" ;;
*) echo "usage: $0 prepare|run [STEP ...]" >&2; exit 2 ;;
esac
