#!/usr/bin/env bash
# gpu-runtime-check.sh — libtile's GPU tests and launch benchmark, on a
# machine with an NVIDIA GPU. It builds nothing: the programs are built
# where the tree is configured (`make check` builds them and skips them
# there) and carried here, with the source tree, as they are static
# executables that need only libc and the driver (loaded with dlopen).
#
#   scripts/gpu-runtime-check.sh [BUNDLE.tlb ...]
#
# runs tests/unit/test_gpu_runtime (hand-written vadd bundle: sizes,
# alignments, poisoned outputs, CUDA graph capture, threads, a second
# device when present; any BUNDLE given is loaded too), then
# compute-sanitizer memcheck over it when the tool is on PATH, then
# tests/unit/test_gpu_tmap (tensor maps: TMA loads of boxes past the
# extents, the host time of cached and encoded maps; skipped below sm_90),
# then bench/launch_overhead (ROUNDS rounds, default 200). Exit status: 0 when
# every test passed (77, a skip, counts as a failure here: this script is
# meant for a GPU machine), 1 otherwise.
set -u
cd "$(dirname "$0")/.."
status=0

for p in tests/unit/test_gpu_runtime tests/unit/test_gpu_tmap bench/launch_overhead; do
  if [ ! -x "$p" ]; then
    echo "gpu-runtime-check: $p is missing: build it with 'make check' and carry it" >&2
    exit 1
  fi
done

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true

. scripts/gpu-step.sh

run_step tests/unit/test_gpu_runtime "$@"
if command -v compute-sanitizer >/dev/null 2>&1; then
  run_step compute-sanitizer --tool memcheck --error-exitcode 1 tests/unit/test_gpu_runtime
else
  echo "=== compute-sanitizer not on PATH: memcheck skipped"
fi
run_step tests/unit/test_gpu_tmap
run_step bench/launch_overhead "${ROUNDS:-200}"
echo "gpu-runtime-check: $([ $status -eq 0 ] && echo passed || echo FAILED)"
exit $status
