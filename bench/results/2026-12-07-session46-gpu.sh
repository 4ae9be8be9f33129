#!/bin/bash
# Session 46's device calls (carry ["build-s46"], built by
# -session46-prepare.sh):
#   bash bench/results/2026-12-07-session46-gpu.sh check
#       the differential tests of persist (persistent walks, now with
#       counted slots), tma, tmalast, dot and pingpong against the
#       interpreter at sm_90a, then compute-sanitizer racecheck and
#       memcheck over persist.tile (bench/abcheck.sh)
#   bash bench/results/2026-12-07-session46-gpu.sh time [att|mm|all]
#       bench/abvariants.py over build-s46/ab, base `last`
#   bash bench/results/2026-12-07-session46-gpu.sh prep
#       (carry build-s46p too) the persistent walk with its copies'
#       coordinates computed before the product's wait (`pprep`: tilec
#       with -session46-prep.patch): persist and dot against the
#       interpreter, racecheck over persist, then abvariants.py mm
#   bash bench/results/2026-12-07-session46-gpu.sh ncu
#       Nsight Compute over attention (Tile's and cuDNN's kernels, D = 64
#       and 128): -session46-ncu.py, the sections named below, details
cd "$(dirname "$0")/../.."
o=build-s46
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench
case ${1:-check} in
check)
    bash bench/abcheck.sh $o racecheck:persist memcheck:persist
    ;;
time)
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
    timeout 570 python3 bench/abvariants.py $o/ab "${2:-all}" last
    ;;
prep)
    bash bench/abcheck.sh build-s46p racecheck:persist
    timeout 400 python3 bench/abvariants.py $o/ab mm p
    ;;
ncu)
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
    set -- -k 'regex:attention|sdpa|fmha|flash|cudnn|fprop' --launch-skip 2 --launch-count 40 \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats \
        --section Occupancy --section LaunchStats
    ncu --version | tail -1
    timeout 250 ncu "$@" --print-details all \
        python3 bench/results/2026-12-07-session46-ncu.py $o/ab ||
        timeout 250 ncu "$@" python3 bench/results/2026-12-07-session46-ncu.py $o/ab
    ;;
esac
