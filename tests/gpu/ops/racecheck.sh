#!/bin/sh
# make check's test of the simulation's racecheck (sim/warpsim.c,
# WARPSIM_RACECHECK=1, under which check.sh and gen-run.sh run every
# simulated case): hazards it must report, made by hand from
# persist.tile's `wide` (sm_90a, --persistent: 8 warps, a ring of 4
# stages filled by TMA and read by wgmma, its accumulator converted
# through shared memory in two pieces) by dropping one CTA barrier from
# its LLVM IR:
#   pieces  the barrier between the reads of piece 0 and the writes of
#           piece 1 (plan/lowering.c fit_split; the second barrier after
#           the first piece's block)
#   slots   the barrier that frees a ring slot before thread 0's TMA
#           copy refills it, while other warps' wgmma may still read it
#           (the second barrier after the full mbarrier's wait)
# Each mutant, simulated with racecheck, must fail naming a hazard
# between two warps, and the kernel as built must pass. Without
# racecheck such a mutant passes or fails as the host's scheduling
# happens to interleave the warps (`slots` passed the plain simulation
# when tried, `pieces` in session 42). 0 pass, 1 fail, 77 where the
# simulation's tools are missing.
set -eu
src=${TILE_SRCDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
tilec=${TILEC:-./tilec}
d=tests/gpu/ops/bundles/racecheck
sh "$src/tests/gpu/ops/sim/build.sh" tools || { echo "racecheck.sh: no simulation tools"; exit 77; }
rm -rf "$d"
mkdir -p "$d/sim/asbuilt"
flags=$(sed -n '1s|^// tilec: ||p' "$src/tests/gpu/ops/persist.tile")   # --persistent
# shellcheck disable=SC2086
"$tilec" --arch=sm_90a $flags -o "$d/persist.tlb" "$src/tests/gpu/ops/persist.tile"
sh "$src/tests/gpu/ops/sim/build.sh" lib "$d/sim"
TILEC_FLAGS=$flags sh "$src/tests/gpu/ops/sim/build.sh" kernel "$d/sim/asbuilt" \
    "$src/tests/gpu/ops/persist.tile" sm_90a

# mutant NAME LABEL N: wide's aligned entry without the N-th CTA barrier
# after block LABEL, simulated from $d/sim/NAME
mutant() {
    mkdir -p "$d/sim/$1"
    awk -v L="$2" -v N="$3" '
        BEGIN { inw = 0; seen = 0; n = 0; gone = 0 }
        /^define .*@wide__c0__a16\(/ { inw = 1 }
        inw && index($0, L ":") == 1 { seen = 1 }
        inw && seen && /barrier\.cta\.sync\.aligned\.all/ { if (++n == N) { gone = 1; next } }
        /^}/ { inw = 0 }
        { print }
        END { if (!gone) { print "racecheck.sh: no such barrier in wide" > "/dev/stderr"; exit 1 } }' \
        "$d/sim/asbuilt/persist.ll" > "$d/sim/$1/persist.ll"
    sh "$src/tests/gpu/ops/sim/build.sh" ll "$d/sim/$1" "$d/sim/$1/persist.ll"
}
mutant pieces piece 2
mutant slots tma.ready 2

status=0
run() {   # run SIMDIR: wide's cases on simulated warps, racecheck on
    WARPSIM_RACECHECK=1 ./tests/gpu/ops/difftest -x "$1" -r -k wide "$d" \
        "$src/tests/gpu/ops/persist.tile" > "$d/out.txt" 2>&1
}
if run "$d/sim/asbuilt"; then
    echo "ok   persist.tile wide as built: no hazard"
else
    echo "FAIL persist.tile wide as built:"; tail -3 "$d/out.txt"; status=1
fi
for m in pieces slots; do
    if run "$d/sim/$m"; then
        echo "FAIL persist.tile wide, $m mutant: passed"; status=1
    elif grep -q "racecheck: thread [0-9]* (warp [0-9]*) of .* shared byte .* thread [0-9]* (warp [0-9]*)" \
        "$d/out.txt"; then
        echo "ok   persist.tile wide, $m mutant: $(grep racecheck: "$d/out.txt" | head -1)"
    else
        echo "FAIL persist.tile wide, $m mutant: no hazard named"; tail -3 "$d/out.txt"; status=1
    fi
done
exit $status
