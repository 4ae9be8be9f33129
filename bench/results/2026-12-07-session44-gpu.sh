#!/bin/bash
# Session 44's device calls (carry ["build-s44"], built by
# -session44-prepare.sh):
#   bash bench/results/2026-12-07-session44-gpu.sh check
#       the differential test of every tests/gpu/ops file against the
#       interpreter at sm_90a (this tree's tilec: TMA polls with
#       a suspend-time hint; the bug hunt's files where built), then
#       compute-sanitizer racecheck over tma.tile and persist.tile
#   bash bench/results/2026-12-07-session44-gpu.sh time [att|mm|all]
#       -session44-ab.py: hint / nohint / relh / rel, beside cuBLAS,
#       cuDNN and torch._scaled_mm
cd "$(dirname "$0")/../.."
o=build-s44
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
case ${1:-check} in
check)
    for a in sm_90a; do
        for b in $o/ops/$a/*.tlb; do
            f=$(basename "$b" .tlb)
            r=$(timeout 60 $o/ops/difftest -q $o/ops/$a tests/gpu/ops/$f.tile 2>&1 | tail -1)
            echo "$a $f: $r"
        done
    done 2>&1 | tee /tmp/difftest.txt | grep -v " 0 failed" 
    echo "difftest lines: $(wc -l < /tmp/difftest.txt), with failures: $(grep -vc ' 0 failed' /tmp/difftest.txt)"
    for f in tma persist; do
        timeout 120 compute-sanitizer --tool racecheck $o/ops/difftest -q $o/ops/sm_90a \
            tests/gpu/ops/$f.tile > /tmp/rc-$f.txt 2>&1
        echo "racecheck $f.tile rc=$?: $(grep -E 'RACECHECK SUMMARY' /tmp/rc-$f.txt | tail -1)" \
             "$(grep -E 'passed' /tmp/rc-$f.txt | tail -1)"
    done
    ;;
time)
    timeout 560 python3 bench/results/2026-12-07-session44-ab.py $o/ab "${2:-all}"
    ;;
esac
