#!/usr/bin/env bash
# gpu-fuzz.sh — the generated-kernel campaign on the GPU machine:
# tests/fuzz/tilegen.py programs for a seed range, compiled there by a
# static tilec on every core, each case run on the interpreter and on the
# GPU by difftest (tests/fuzz/gen-run.sh -m gpu).
#
#   scripts/gpu-fuzz.sh prepare                  HERE, in a built tree
#   scripts/gpu-fuzz.sh run SEED_FROM SEED_TO    THERE, carrying build-gpu-fuzz
#
# prepare writes build-gpu-fuzz/: tilec.xz, a tilec that runs without LLVM
# (STATIC_TILEC=PATH, built with ./configure --enable-static-llvm; or the
# tree's ./tilec when it does not load libLLVM), stripped and compressed,
# difftest (built by make check, or `make tests/gpu/ops/difftest`: a
# static executable needing only libc and, at run time, libcuda.so.1), and
# with PTXAS=PATH that ptxas, compressed: run then gives it to tilec
# (TILE_PTXAS), so that the bundles carry its cubins instead of leaving
# the PTX to the driver's JIT. Use ptxas 13.5 or later (pip install
# nvidia-cuda-nvcc: .../nvidia/cu13/bin/ptxas): 13.0's, which is also the
# 580 driver's JIT, miscompiles the programs of tests/fuzz/gpu-only.
# The GPU machine has no LLVM but python3: the programs are generated
# there from the carried tree's tests/fuzz/tilegen.py, and compiled there
# (xargs -P over its 16 cores).
#
# run: gen-run.sh -m gpu -j $(nproc) -T BUDGET (default 360 s of
# generating and compiling, so that difftest's phase fits in a 10-minute
# call; seeds past it are counted "not run": rerun the rest as another
# range) in build-gpu-fuzz/run, with tests/fuzz/regress and
# tests/fuzz/gpu-only (programs that failed on the GPU before) as extra
# files every time, and with $TILE_PTXAS set when prepared with one (the
# bundles then carry its cubins); then copies the failing programs and the
# whole difftest log to $OUT (default build-gpu-fuzz/out). Its last lines
# are the summary table: programs, case runs, mismatches, rejected
# programs, seconds and the failing seeds. Environment: GEN_OPTS (more
# tilegen.py options), DT_SEED (difftest's input seed, default 1), BUDGET,
# ARCH (tilec --arch, default sm_90; sm_90a for wgmma and TMA).
# Exit: gen-run.sh's (0 all passed, 1 a mismatch or a rejected program).
#
# Device call, after prepare:
#   run(command="scripts/gpu-fuzz.sh run 0 3999", carry=["build-gpu-fuzz"],
#       kind="nvidia-h200", timeout_s=600)
set -u
cd "$(dirname "$0")/.."
out=build-gpu-fuzz

prepare() {
    set -e
    tilec=${STATIC_TILEC:-./tilec}
    if ldd "$tilec" 2>/dev/null | grep -q libLLVM; then
        echo "$tilec loads libLLVM: give STATIC_TILEC=PATH, a tilec configured with" >&2
        echo "--enable-static-llvm (in a separate clone: git clone . /tmp/ts && cd /tmp/ts &&" >&2
        echo "autoreconf -fi && ./configure --enable-static-llvm && make -j2 tilec)" >&2
        exit 2
    fi
    [ -x tests/gpu/ops/difftest ] || make tests/gpu/ops/difftest >/dev/null
    mkdir -p "$out"
    rm -rf "$out/run" "$out/out"
    strip -o "$out/tilec" "$tilec"
    xz -f -T2 "$out/tilec"
    cp tests/gpu/ops/difftest "$out/difftest"
    rm -f "$out/ptxas.xz"
    if [ -n "${PTXAS:-}" ]; then
        "$PTXAS" --version | tail -n 1
        xz -c -T2 "$PTXAS" >"$out/ptxas.xz"
    fi
    echo "prepared $out: $(ls "$out" | tr '\n' ' ')($(du -sh "$out" | cut -f1))"
    echo "device call:"
    echo "  run(command=\"scripts/gpu-fuzz.sh run 0 3999\", carry=[\"$out\"], kind=\"nvidia-h200\", timeout_s=600)"
}

run() {
    if [ $# -ne 2 ]; then
        echo "usage: $0 run SEED_FROM SEED_TO" >&2
        exit 2
    fi
    if [ ! -f "$out/tilec.xz" ] || [ ! -x "$out/difftest" ]; then
        echo "$out is not prepared (run: $0 prepare, here, and carry $out)" >&2
        exit 2
    fi
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
    # (decompressed outside build-gpu-fuzz, which stays small enough to carry)
    local tilec=${TMPDIR:-/tmp}/tilec-fuzz.$$
    xz -dc "$out/tilec.xz" >"$tilec" && chmod +x "$tilec"
    local ptxas=
    if [ -f "$out/ptxas.xz" ]; then
        ptxas=${TMPDIR:-/tmp}/ptxas-fuzz.$$
        xz -dc "$out/ptxas.xz" >"$ptxas" && chmod +x "$ptxas"
        export TILE_PTXAS=$ptxas
        echo "ptxas: $("$ptxas" --version | tail -n 1)"
    fi
    local o=${OUT:-$out/out} status=0
    mkdir -p "$o"
    # shellcheck disable=SC2086
    TILEC=$tilec DIFFTEST=$PWD/$out/difftest TILE_STDLIB=$PWD/stdlib \
        bash tests/fuzz/gen-run.sh -m gpu -j "$(nproc)" -T "${BUDGET:-360}" -a "${ARCH:-sm_90}" \
        -s "${DT_SEED:-1}" -g "${GEN_OPTS:-}" -d "$out/run" "$1" "$2" \
        tests/fuzz/regress/*.tile tests/fuzz/gpu-only/*.tile >"$o/gen-run.log" 2>&1 ||
        status=$?
    cp "$out/run/difftest.log" "$o/" 2>/dev/null || true
    for s in $(grep -o '^FAIL [^ :]*\.tile' "$out/run/difftest.log" 2>/dev/null |
        sed 's/^FAIL //' | sort -u) $(sed 's/$/.tile/; s/^/g/' "$out/run/rejected" 2>/dev/null); do
        cp "$out/run/$s" "$o/" 2>/dev/null || true
    done
    # the report: failures first (bounded), the summary table last
    head -n -3 "$o/gen-run.log" | head -n 400
    tail -n 3 "$o/gen-run.log"
    rm -f "$tilec" ${ptxas:+"$ptxas"}
    return $status
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
prepare) prepare ;;
run) run "$@" ;;
*) echo "usage: $0 prepare | run SEED_FROM SEED_TO" >&2; exit 2 ;;
esac
