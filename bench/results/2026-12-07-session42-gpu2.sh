#!/bin/bash
# Session 42, device call 2: (1) TMA copies' coordinates computed before
# the product's wait, old and new tilec, beside cuBLAS
# (-session42-coords.py); (2) the differential tests of tma.tile,
# persist.tile and dot.tile built by the new tilec, racecheck over
# persist.tile's kernels whose epilogue converts in pieces; (3) bench.py
# steps matmul and mm_bias_relu (Tile beside cuBLAS, torch.compile and
# Triton in one process, every output checked first) with call 1's
# bundles (device time was short: attention and fp8mm left out).
# Here: call 1's preparation (-session42-gpu1.sh), then build-s42/mm/
# {s3,s4,p3}{old,new}.tlb (examples/matmul.tile f16 128x256x64 w8, 3 / 4
# stages, --persistent 3 stages, by 399f05e's tilec and 4863e28's) and
# p4new.tlb (--persistent at 4 stages, by the tilec that splits the
# epilogue's conversion),
# build-s42/ops/sm_90a/{tma,persist,dot}.tlb (each file's header flags)
# and build-s42/difftest. Carry ["build-s42"].
cd "$(dirname "$0")/../.."
o=build-s42
out=${OUT:-/tmp/out}
mkdir -p "$out/main"
export TILE_STDLIB=$PWD/stdlib
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "== coordinates before the wait"
TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench timeout 170 \
    python3 bench/results/2026-12-07-session42-coords.py $o/mm
for f in tma persist dot; do
    echo "== difftest $f.tile"
    timeout 60 $o/difftest -q $o/ops/sm_90a tests/gpu/ops/$f.tile 2>&1 | tail -2
done
echo "== racecheck persist.tile (the epilogue's conversion in pieces: wide, wide32)"
timeout 150 compute-sanitizer --tool racecheck $o/difftest -q -k wide $o/ops/sm_90a \
    tests/gpu/ops/persist.tile > "$out/racecheck-persist.txt" 2>&1
echo "rc=$?"; grep -E "RACECHECK SUMMARY|passed|failed" "$out/racecheck-persist.txt" | tail -3
timeout 150 python3 bench/bench.py --build $o --out "$out/main" matmul mm_bias_relu \
    > "$out/main.log" 2>&1; echo "main rc=$?"
grep -E "CHECK FAILED|Traceback|Error" "$out/main.log" | head -10
cat "$out/main/bench.md" 2>/dev/null | grep -E "matmul|mm_bias|mm e4m3|attention" | head -90
