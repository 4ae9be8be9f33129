#!/usr/bin/env bash
# gpu-tune-check.sh — the autotuner on a machine with an NVIDIA GPU. It
# builds nothing: tests/unit/test_gpu_tune is built where the tree is
# configured (`make check` builds it and skips it there) and carried here;
# it is a static executable needing only libc and the driver.
#
#   scripts/gpu-tune-check.sh
#
# runs test_gpu_tune's two phases as two processes sharing a fresh cache
# directory: the first tunes the spin bundle (configurations that differ
# only in speed), must pick the fastest and leave the outputs exactly one
# launch's worth; the second must take the same choice from the disk cache
# without timing. Then both phases again as test_gpu_tune runs them under
# make check; the AOT example (softmax through its generated typed
# launcher, autotuned, checked against C); the libtile launch benchmark
# (the fast path with the tuner in place: target +0.5 us over
# cuLaunchKernel). Exit status 0 when everything passed (77, a skip,
# counts as a failure here).
set -u
cd "$(dirname "$0")/.."
status=0
for p in tests/unit/test_gpu_tune examples/aot/softmax_aot bench/launch_overhead; do
  if [ ! -x "$p" ]; then
    echo "gpu-tune-check: $p is missing: build it with 'make check' and carry it" >&2
    exit 1
  fi
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
export TILE_CACHE_DIR
TILE_CACHE_DIR=$(mktemp -d /tmp/tile-tune-check-XXXXXX)

. scripts/gpu-step.sh

run_step tests/unit/test_gpu_tune first
run_step tests/unit/test_gpu_tune second
echo "=== cache file:"; cat "$TILE_CACHE_DIR"/*.tune 2>/dev/null
rm -rf "$TILE_CACHE_DIR"
unset TILE_CACHE_DIR
run_step tests/unit/test_gpu_tune
TILE_VERBOSE=1 run examples/aot/softmax_aot
run_step bench/launch_overhead "${ROUNDS:-200}"
echo "gpu-tune-check: $([ $status -eq 0 ] && echo passed || echo FAILED)"
exit $status
