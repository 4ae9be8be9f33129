#!/bin/bash
# session 27's device call (bench/results/2026-12-05-h200-session27-run.sh, trimmed to one call)
export TILE_STDLIB=$PWD/stdlib
out=${OUT:-/tmp/out}; mkdir -p $out
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 60 build-s27/bin/test_gpu_tmap > $out/test_gpu_tmap.txt 2>&1; echo "test_gpu_tmap rc=$?"; tail -8 $out/test_gpu_tmap.txt
timeout 120 build-gpu-ops/difftest build-gpu-ops tests/gpu/ops/tma.tile tests/gpu/ops/dot.tile > $out/ops.txt 2>&1; echo "difftest tma+dot rc=$?"
grep -E "^FAIL" $out/ops.txt | head -8; grep -c "__a16 " $out/ops.txt; tail -1 $out/ops.txt
if command -v compute-sanitizer >/dev/null; then
  timeout 100 compute-sanitizer --tool memcheck build-gpu-ops/difftest build-gpu-ops tests/gpu/ops/tma.tile > $out/memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY" $out/memcheck.txt | tail -1
  timeout 100 compute-sanitizer --tool racecheck build-gpu-ops/difftest build-gpu-ops tests/gpu/ops/tma.tile > $out/racecheck.txt 2>&1; echo "racecheck rc=$?"; grep -E "ERROR SUMMARY" $out/racecheck.txt | tail -1
fi
TILE_LIBDIR=$PWD/build-s27 PYTHONPATH=$PWD/python timeout 280 python3 build-s27/tma.py build-s27/tma > $out/tma.txt 2>&1; echo "tma.py rc=$?"
cat $out/tma.txt
