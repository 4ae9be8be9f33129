#!/bin/bash
# abcheck.sh — on the GPU machine, the differential tests of the
# tests/gpu/ops bundles bench/abbuild.sh built into OUT, against the
# interpreter, then compute-sanitizer over some of them:
#
#   bash bench/abcheck.sh OUT [TOOL:FILE ...]     (e.g. racecheck:persist)
#
# One line a file ("sm_90a FILE: difftest's summary") and one a
# sanitizer run ("TOOL FILE.tile rc=N: its summary, difftest's").
cd "$(dirname "$0")/.."
o=$1; shift
export TILE_STDLIB=$PWD/stdlib
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
for b in "$o"/ops/sm_90a/*.tlb; do
    f=$(basename "$b" .tlb)
    r=$(timeout 90 "$o"/ops/difftest -q "$o"/ops/sm_90a tests/gpu/ops/$f.tile 2>&1 | tail -1)
    echo "sm_90a $f: $r"
done
for t in "$@"; do
    tool=${t%%:*} f=${t#*:}
    timeout 150 compute-sanitizer --tool "$tool" "$o"/ops/difftest -q "$o"/ops/sm_90a \
        tests/gpu/ops/$f.tile > /tmp/cs.txt 2>&1
    echo "$tool $f.tile rc=$?: $(grep -E 'SUMMARY' /tmp/cs.txt | tail -1)" \
         "$(grep -E 'passed' /tmp/cs.txt | tail -1)"
done
