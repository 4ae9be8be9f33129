#!/bin/sh
# gen-check.sh — make check's run of the kernel generator: a fixed range of
# tests/fuzz/tilegen.py seeds plus every reduced reproducer of
# tests/fuzz/regress/*.tile, through tests/fuzz/gen-run.sh on simulated
# warps (the interpreter against the lowered code rebuilt for the host),
# in tests/fuzz/gen-check/ of the build tree. The seed range is fixed so
# that a failure reproduces (`tests/fuzz/gen-run.sh -j2 SEED SEED` from
# the build tree); GEN_SEED_FROM / GEN_SEED_TO change it. Its size keeps
# the test near 2 minutes on 2 cores (about 3 CPU-seconds a seed); it
# holds seed 1008, which failed before issue 10's fix of the comparison
# rule (regress/cmp-contiguous.tile has the reduced cases).
# Then a few seeds of warpgroup-MMA products built --persistent for
# sm_90a (tilegen.py --templates dot --wide-dots; GEN_WG_FROM/GEN_WG_TO),
# in tests/fuzz/gen-check-wg/: walks whose TMA slots are released by
# counters and drained in the epilogue's arm (seeds 78102-78104 hold 19
# such entries; about a minute). Then row kernels (--templates row;
# GEN_ROW_FROM/GEN_ROW_TO) built --split-loads, in
# tests/fuzz/gen-check-row/: seeds 78417-78441 hold four whose weights
# beside a realigned row are split (plan/realign.c split_load; about half
# a minute).
# Exit: gen-run.sh's: 0 pass, 1 a mismatch or a rejected program, 77 where
# llc, a C compiler or python3 is missing (as tests/gpu/ops/check.sh).
set -eu
src=${TILE_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
from=${GEN_SEED_FROM:-1000}
to=${GEN_SEED_TO:-1039}
command -v bash >/dev/null 2>&1 || { echo "gen-check.sh: no bash; skipped"; exit 77; }
rc=0
bash "$src/tests/fuzz/gen-run.sh" -j 2 -d tests/fuzz/gen-check "$from" "$to" \
    "$src"/tests/fuzz/regress/*.tile || rc=$?
[ "$rc" -ne 77 ] || exit 77
TILEC_FLAGS="${TILEC_FLAGS:+$TILEC_FLAGS }--persistent" bash "$src/tests/fuzz/gen-run.sh" -j 2 \
    -a sm_90a -g "--templates dot --wide-dots" -d tests/fuzz/gen-check-wg \
    "${GEN_WG_FROM:-78102}" "${GEN_WG_TO:-78104}" || { r=$?; [ "$rc" -ne 0 ] || rc=$r; }
TILEC_FLAGS="${TILEC_FLAGS:+$TILEC_FLAGS }--split-loads" bash "$src/tests/fuzz/gen-run.sh" -j 2 \
    -g "--templates row" -d tests/fuzz/gen-check-row \
    "${GEN_ROW_FROM:-78417}" "${GEN_ROW_TO:-78441}" || { r=$?; [ "$rc" -ne 0 ] || rc=$r; }
exit "$rc"
