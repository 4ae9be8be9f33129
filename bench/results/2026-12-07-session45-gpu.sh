#!/bin/bash
# Session 45's device calls (carry ["build-s45"], built by
# -session45-prepare.sh):
#   bash bench/results/2026-12-07-session45-gpu.sh check
#       the differential test of every tests/gpu/ops file against the
#       interpreter at sm_90a, then compute-sanitizer racecheck and
#       memcheck over tmalast.tile (slots released by counters) and
#       racecheck over tma.tile
#   bash bench/results/2026-12-07-session45-gpu.sh time [att|mm|all]
#       bench/abvariants.py: cta / last / rel beside cuBLAS, cuDNN, Triton
cd "$(dirname "$0")/../.."
o=build-s45
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
case ${1:-check} in
check)
    for b in $o/ops/sm_90a/*.tlb; do
        f=$(basename "$b" .tlb)
        r=$(timeout 60 $o/ops/difftest -q $o/ops/sm_90a tests/gpu/ops/$f.tile 2>&1 | tail -1)
        echo "sm_90a $f: $r"
    done 2>&1 | tee /tmp/difftest.txt | grep -v " 0 failed"
    echo "difftest files: $(wc -l < /tmp/difftest.txt), with failures: $(grep -vc ' 0 failed' /tmp/difftest.txt)"
    grep "tmalast\|sm_90a tma:" /tmp/difftest.txt
    for t in "racecheck tmalast" "memcheck tmalast" "racecheck tma"; do
        set -- $t
        timeout 150 compute-sanitizer --tool $1 $o/ops/difftest -q $o/ops/sm_90a \
            tests/gpu/ops/$2.tile > /tmp/cs.txt 2>&1
        echo "$1 $2.tile rc=$?: $(grep -E 'SUMMARY' /tmp/cs.txt | tail -1)" \
             "$(grep -E 'passed' /tmp/cs.txt | tail -1)"
    done
    ;;
time)
    timeout 570 python3 bench/abvariants.py $o/ab "${2:-all}"
    ;;
esac
