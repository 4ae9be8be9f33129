#!/usr/bin/env bash
# gpu-ddp.sh — Tile inside a torchrun / NCCL data-parallel job, on the GPU
# machine, in one command (issue 16).
#
#   scripts/gpu-ddp.sh prepare   HERE (tilec builds): build-ddp/ with
#                                libtile.so (scripts/gpu-bench.sh libtile),
#                                bin/test_gpu_tune (static) and torch/: the
#                                MLP's bundles (scripts/gpu-python.sh bundles)
#   scripts/gpu-ddp.sh [run]     THERE, carrying build-ddp:
#     1. tests/unit/test_gpu_tune ranks: two processes tuning and launching
#        at once, rank i on device i % devices (on a one-GPU machine both
#        on the one device), sharing one tuning cache; then a third
#        process must take the winner from it;
#     2. test_gpu_tune devices: two devices tuned and launched from two
#        threads of one process (exit 77, reported "not run", on one GPU);
#     3. examples/torch/ddp_train.py under torchrun --standalone
#        --nproc_per_node=NPROC (default: every GPU) with NCCL, the
#        kernels from the carried bundles: the ranks' parameters must
#        agree and equal the single-process run's (DDP_ARGS adds options,
#        e.g. DDP_ARGS="--size large --steps 5").
#   Logs under $OUT (default build-ddp/out): tune_ranks.log,
#   tune_devices.log, ddp_train.log; a table of the three last. Exit
#   status 0 when every step that could run passed.
#
# Device call, after prepare:
#   run(command="scripts/gpu-ddp.sh run", carry=["build-ddp"], kind="nvidia-h200", timeout_s=300)
set -u
cd "$(dirname "$0")/.."
build=$PWD/build-ddp
. scripts/gpu-step.sh

prepare() {
    set -e
    [ -x ./tilec ] || { echo "build the tree first (./configure && make)" >&2; exit 1; }
    make -j2 tests/unit/test_gpu_tune
    mkdir -p "$build/bin"
    cp tests/unit/test_gpu_tune "$build/bin/"
    scripts/gpu-bench.sh libtile "$build/libtile.so"
    scripts/gpu-python.sh bundles "$build/torch"
    echo "prepared $build ($(du -sh "$build" | cut -f1))"
    echo "device call:"
    echo "  run(command=\"scripts/gpu-ddp.sh run\", carry=[\"build-ddp\"], kind=\"nvidia-h200\", timeout_s=300)"
}

# step NAME LOG CMD...: runs CMD into $OUT/LOG; one table row.
step() {
    local name=$1 log=$2
    shift 2
    "$@" > "$OUT/$log" 2>&1
    local rc=$?
    case $rc in
        0) rows="$rows$(printf '%-44s %s' "$name" PASS)\n" ;;
        77) rows="$rows$(printf '%-44s %s' "$name" "not run: $(tail -1 "$OUT/$log")")\n" ;;
        *) rows="$rows$(printf '%-44s %s' "$name" "FAIL (exit $rc, $log)")\n"; status=1 ;;
    esac
    tail -25 "$OUT/$log"
}

run() {
    prepared "$build" scripts/gpu-ddp.sh libtile.so bin/test_gpu_tune torch/mlp-f32.tlb.xz || exit 2
    nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader
    local gpus nproc bundles=/tmp/tile-ddp-bundles
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    nproc=${NPROC:-$gpus}
    status=0 rows=""
    TILE_CACHE_DIR=$(mktemp -d /tmp/tile-ddp-cache-XXXXXX) \
        step "libtile: 2 processes, 1 cache ($gpus GPU(s))" tune_ranks.log \
        "$build/bin/test_gpu_tune" ranks
    TILE_CACHE_DIR=$(mktemp -d /tmp/tile-ddp-cache-XXXXXX) \
        step "libtile: 2 devices in 1 process" tune_devices.log \
        "$build/bin/test_gpu_tune" devices
    scripts/gpu-python.sh unpack "$build/torch" "$bundles" || exit 1
    # shellcheck disable=SC2086  # DDP_ARGS is a list of options
    TILE_CACHE_DIR=$(mktemp -d /tmp/tile-ddp-cache-XXXXXX) \
        step "ddp_train.py: torchrun, $nproc rank(s), NCCL" ddp_train.log \
        python3 -m torch.distributed.run --standalone --nproc_per_node="$nproc" \
        examples/torch/ddp_train.py --device cuda --bundle-dir "$bundles" ${DDP_ARGS:-}
    printf '\n%b' "$rows"
    exit $status
}

case ${1:-run} in
prepare) prepare ;;
run) run ;;
*) sed -n '2,24p' "$0" >&2; exit 2 ;;
esac
