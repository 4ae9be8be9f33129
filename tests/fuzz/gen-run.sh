#!/usr/bin/env bash
# gen-run.sh — differential testing of generated kernels: for every seed
# of a range, tests/fuzz/tilegen.py writes a program, tilec builds its
# bundle, and difftest (tests/gpu/ops/difftest.c) runs every case on the
# interpreter and on the GPU, or without one on simulated warps.
#
#   tests/fuzz/gen-run.sh [options] SEED_FROM SEED_TO [FILE.tile...]
#     -j N       parallel jobs (default: the number of CPUs)
#     -d DIR     work directory (default gen-run; emptied of earlier
#                g*.tile first): gSEED.tile, .tlb, sim/gSEED.so, logs
#     -m MODE    sim: simulated warps (sim/build.sh; needs llc, cc,
#                python3); gpu: the GPU (difftest finds it); interp: the
#                interpreter only (checks the programs run); default sim
#     -a ARCH    tilec --arch (default sm_90)
#     -g OPTS    more tilegen.py options ("--kernels 4 --no-contig-cmp")
#     -s SEED    difftest's input seed (default 1)
#     -q         print only the summary and the failures' seeds
#     -T SECONDS a time budget for generating and compiling: seeds not
#                started by then are left out (counted as "not run")
#   FILE.tile... (after the range; the range may be empty, e.g. 1 0) are
#   hand-written or reduced programs run the same way (tests/fuzz/regress).
#
# Design: seeds are independent, so every per-seed step (generate,
# compile, build the simulation library) runs in parallel through
# `xargs -P`, each by this script calling itself (--one SEED). Then
# difftest -q runs over batches of files, in parallel too; inputs depend
# only on difftest's seed and the file's name, so a failing file replays
# alone. A batch whose difftest dies without its summary line (a crash, or
# a GPU fault that ends the process) is rerun one file at a time, so that
# the failure is attributed. The report lists, for every mismatch, the
# seed, the kernel, difftest's lines and the kernel's source; a program
# tilec rejects is reported with tilec's message (a generator or compiler
# bug: both are failures), and so is one whose PTX holds 8- or 16-bit
# integer arithmetic (tests/fuzz/narrow-check.sh: lower/narrow.c's
# invariant, counted with the rejected). The last lines are a summary table: programs,
# case runs, mismatches, rejected programs, seconds, failing seeds.
#
# Environment: TILEC (default ./tilec, from the build tree), TILEC_FLAGS
# (more tilec options for every program, e.g. --tma; also sim/build.sh's), DIFFTEST
# (default ./tests/gpu/ops/difftest), TILE_SRCDIR (the source tree; default
# two levels above this script), PYTHON (python3), LLVM_BIN and CC (for
# sim/build.sh), WARPSIM_RACECHECK (default 1: simulated programs fail on
# a shared-memory hazard between warps, sim/warpsim.c; 0 runs without).
# Run from the build tree (VPATH builds included).
# Exit: 0 all passed, 1 a mismatch, a rejected program or a crash, 2 usage
# or setup error, 77 -m sim without the simulation's tools.
set -u
self=$0
src=${TILE_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
export TILE_SRCDIR=$src
TILEC=${TILEC:-$PWD/tilec}
DIFFTEST=${DIFFTEST:-$PWD/tests/gpu/ops/difftest}
PYTHON=${PYTHON:-python3}
WARPSIM_RACECHECK=${WARPSIM_RACECHECK-1}
export TILEC DIFFTEST PYTHON WARPSIM_RACECHECK

# --one SEED DIR MODE ARCH OPTS: generate, compile and (sim) build one seed.
if [ "${1:-}" = --one ]; then
    s=$2 d=$3 mode=$4 arch=$5 opts=$6
    if [ -n "${GEN_DEADLINE:-}" ] && [ "$(date +%s)" -ge "$GEN_DEADLINE" ]; then
        echo "$s" >>"$d/notrun"
        exit 0
    fi
    f=$d/g$s.tile
    if [ ! -f "$f" ]; then
        # shellcheck disable=SC2086
        "$PYTHON" "$src/tests/fuzz/tilegen.py" --seed "$s" $opts -o "$f" 2>"$d/g$s.gen.log" ||
            { echo "$s" >>"$d/genfail"; exit 0; }
    fi
    # shellcheck disable=SC2086
    "$TILEC" --arch="$arch" ${TILEC_FLAGS:-} -o "$d/g$s.tlb" "$f" 2>"$d/g$s.tilec.log" ||
        { echo "$s" >>"$d/rejected"; exit 0; }
    sh "$src/tests/fuzz/narrow-check.sh" "$d/g$s.tlb" >"$d/g$s.narrow.log" ||
        echo "$s" >>"$d/narrow"
    if [ "$mode" = sim ]; then
        sh "$src/tests/gpu/ops/sim/build.sh" kernel "$d/sim" "$f" "$arch" >"$d/g$s.sim.log" 2>&1 ||
            { echo "$s" >>"$d/simfail"; exit 0; }
        rm -f "$d/sim/g$s.ll" "$d/sim/g$s.host.ll" "$d/sim/g$s.o"
    fi
    echo "$s" >>"$d/ready"
    exit 0
fi

jobs=$(nproc 2>/dev/null || echo 2)
dir=gen-run mode=sim arch=sm_90 opts= dseed=1 quiet=0 budget=
while getopts j:d:m:a:g:s:qT: o; do
    case $o in
    j) jobs=$OPTARG ;;
    d) dir=$OPTARG ;;
    m) mode=$OPTARG ;;
    a) arch=$OPTARG ;;
    g) opts=$OPTARG ;;
    s) dseed=$OPTARG ;;
    q) quiet=1 ;;
    T) budget=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ]; then
    echo "usage: $self [-j N] [-d DIR] [-m sim|gpu|interp] [-a ARCH] [-g OPTS] [-s SEED] [-q] SEED_FROM SEED_TO [FILE.tile...]" >&2
    exit 2
fi
from=$1 to=$2
shift 2
case $mode in sim|gpu|interp) ;; *) echo "$self: -m sim, gpu or interp" >&2; exit 2 ;; esac
for x in "$TILEC" "$DIFFTEST"; do
    [ -x "$x" ] || { echo "$self: $x not built" >&2; exit 2; }
done
if [ "$mode" = sim ]; then
    sh "$src/tests/gpu/ops/sim/build.sh" tools || {
        echo "$self: no simulation tools (llc with x86-64, cc, python3): skipped"
        exit 77
    }
fi
start=$(date +%s)
if [ -n "$budget" ]; then
    export GEN_DEADLINE=$((start + budget))
else
    unset GEN_DEADLINE
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
rm -rf "$dir"/g*.tile "$dir"/g*.tlb "$dir"/g*.log "$dir"/sim "$dir"/batch.* \
    "$dir"/ready "$dir"/rejected "$dir"/genfail "$dir"/simfail "$dir"/narrow "$dir"/files "$dir"/notrun
if [ "$mode" = sim ]; then
    sh "$src/tests/gpu/ops/sim/build.sh" lib "$dir/sim" || exit 2
fi
# Extra files: copied in under their own names (g-less, so no seed clash).
for f in "$@"; do
    b=$(basename "$f" .tile)
    cp "$f" "$dir/$b.tile"
    echo "$b" >>"$dir/extra"
done

# 1. generate, compile, build (in parallel)
if [ "$from" -le "$to" ]; then
    seq "$from" "$to" | xargs -P "$jobs" -I{} "$BASH" "$self" --one {} "$dir" "$mode" "$arch" "$opts"
fi
for f in "$@"; do
    b=$(basename "$f" .tile)
    # shellcheck disable=SC2086
    "$TILEC" --arch="$arch" ${TILEC_FLAGS:-} -o "$dir/$b.tlb" "$dir/$b.tile" 2>"$dir/$b.tilec.log" ||
        { echo "$b" >>"$dir/rejected"; continue; }
    sh "$src/tests/fuzz/narrow-check.sh" "$dir/$b.tlb" >"$dir/$b.narrow.log" ||
        echo "$b" >>"$dir/narrow"
    if [ "$mode" = sim ]; then
        sh "$src/tests/gpu/ops/sim/build.sh" kernel "$dir/sim" "$dir/$b.tile" "$arch" \
            >"$dir/$b.sim.log" 2>&1 || { echo "$b" >>"$dir/simfail"; continue; }
    fi
    echo "$b" >>"$dir/ready.extra"
done
{
    [ -f "$dir/ready" ] && sort -n "$dir/ready" | sed "s|^|$dir/g|; s|\$|.tile|"
    [ -f "$dir/ready.extra" ] && sed "s|^|$dir/|; s|\$|.tile|" "$dir/ready.extra"
} >"$dir/files"
rm -f "$dir/ready.extra" "$dir/extra"

# 2. difftest over batches (in parallel)
simopt=()
[ "$mode" = sim ] && simopt=(-x "$dir/sim")
export DT_SEED=$dseed DT_DIR=$dir
run_batch() {
    # $@: files; one log per batch, named after its first file
    local log
    log=$DT_DIR/batch.$(basename "$1" .tile).log
    "$DIFFTEST" -q -s "$DT_SEED" "${simopt[@]}" "$DT_DIR" "$@" >"$log" 2>&1
    echo "exit $?" >>"$log"
}
export -f run_batch
export simopt_str="${simopt[*]}"
per=$(( ($(wc -l <"$dir/files") + jobs * 4 - 1) / (jobs * 4) ))
[ "$per" -ge 1 ] || per=1
[ "$per" -le 25 ] || per=25
# (arrays do not cross export: rebuild simopt inside)
xargs -P "$jobs" -n "$per" "$BASH" -c 'simopt=($simopt_str); run_batch "$@"' run_batch \
    <"$dir/files"

# A batch without its summary: rerun its files one at a time.
for log in "$dir"/batch.*.log; do
    [ -f "$log" ] || continue
    grep -q '^difftest: [0-9]* passed' "$log" && continue
    first=$(basename "$log" .log)
    first=${first#batch.}
    echo "gen-run: difftest died in the batch from $first.tile; rerunning its files alone" >&2
    # the batch's files: from $first in $dir/files, at most $per
    grep -n "/$first.tile\$" "$dir/files" | cut -d: -f1 | while read -r n; do
        sed -n "$n,$((n + per - 1))p" "$dir/files"
    done | while read -r f; do
        simopt=($simopt_str)
        b=$(basename "$f" .tile)
        "$DIFFTEST" -q -s "$dseed" "${simopt[@]}" "$dir" "$f" >"$dir/batch.1-$b.log" 2>&1
        rc=$?
        echo "exit $rc" >>"$dir/batch.1-$b.log"
        grep -q '^difftest: [0-9]* passed' "$dir/batch.1-$b.log" ||
            echo "FAIL $b.tile: difftest died (exit $rc)" >>"$dir/batch.1-$b.log"
    done
    mv "$log" "$log.died"
done

# 3. report
end=$(date +%s)
cat "$dir"/batch.*.log >"$dir/difftest.log" 2>/dev/null || : >"$dir/difftest.log"
npass=$(awk '/^difftest: [0-9]+ passed/ {s += $2} END {print s + 0}' "$dir/difftest.log")
nfail=$(awk '/^difftest: [0-9]+ passed/ {for (i = 1; i <= NF; i++) if ($i ~ /^failed,?$/) s += $(i - 1)} END {print s + 0}' "$dir/difftest.log")
nskip=$(awk '/^difftest: [0-9]+ passed/ {for (i = 1; i <= NF; i++) if ($i == "run") s += $(i - 1)} END {print s + 0}' "$dir/difftest.log")
died=$(grep -c 'difftest died' "$dir/difftest.log")
nfail=$((nfail + died))
nprog=$(wc -l <"$dir/files")
nrej=0
[ -f "$dir/rejected" ] && nrej=$(wc -l <"$dir/rejected")
nbad=0
for x in genfail simfail narrow; do
    [ -f "$dir/$x" ] && nbad=$((nbad + $(wc -l <"$dir/$x")))
done
failing=$(grep -o '^FAIL [^ :]*\.tile' "$dir/difftest.log" |
    sed -E 's/^FAIL //; s/\.tile$//; s/^g([0-9]+)$/\1/' | sort -un | tr '\n' ' ')

kernel_source() {
    # the // diff: lines of kernel $2 in file $1, then its attributes and text
    awk -v k="$2" '
        /^\/\/ diff: / { if ($3 == k) print; next }
        /^@/ { buf = buf $0 "\n"; next }
        /^kernel / { if ($0 ~ "^kernel " k "[<(]") { on = 1; printf "%s", buf } buf = "" }
        on { print; if ($0 == "}") on = 0 }
    ' "$1"
}

if [ "$quiet" = 0 ]; then
    for s in $(cat "$dir/rejected" 2>/dev/null); do
        echo "=== tilec rejected $s (generator or compiler bug): $dir/$(
            [ -f "$dir/g$s.tile" ] && echo "g$s" || echo "$s").tile"
        head -5 "$dir/g$s.tilec.log" "$dir/$s.tilec.log" 2>/dev/null
    done
    for x in genfail simfail narrow; do
        for s in $(cat "$dir/$x" 2>/dev/null); do
            echo "=== $x: $s"
            tail -5 "$dir/g$s.gen.log" "$dir/g$s.sim.log" "$dir/$s.sim.log" \
                "$dir/g$s.narrow.log" "$dir/$s.narrow.log" 2>/dev/null
        done
    done
    # one report per failing kernel: its difftest lines, then its source
    grep '^FAIL ' "$dir/difftest.log" | awk '{sub(/#.*/, "", $3); print $2, $3}' | sort -u |
        while read -r file k; do
            b=${file%.tile}
            case $b in g*[!0-9]*) what=$b ;; g[0-9]*) what="seed ${b#g}" ;; *) what=$b ;; esac
            echo "=== mismatch: $what, kernel $k ($dir/$file)"
            grep -F "$file $k#" "$dir/difftest.log" | head -12
            kernel_source "$dir/$file" "$k"
        done
fi
[ "$nskip" -gt 0 ] && echo "($nskip case runs on the interpreter only: not simulated, or no GPU)"
[ -f "$dir/notrun" ] && echo "($(wc -l <"$dir/notrun") seeds not run: past the -T budget)"
echo "=== gen-run summary (seeds $from..$to, $mode, $arch, difftest -s $dseed, $dir)"
printf '%-10s %-10s %-11s %-9s %-8s %s\n' programs "case-runs" mismatches rejected seconds "failing seeds"
printf '%-10s %-10s %-11s %-9s %-8s %s\n' "$nprog" "$((npass + nfail + nskip))" "$nfail" \
    "$((nrej + nbad))" "$((end - start))" "${failing:--}$( [ "$nrej" -gt 0 ] &&
        echo " rejected: $(tr '\n' ' ' <"$dir/rejected")")"
[ "$nfail" -eq 0 ] && [ "$nrej" -eq 0 ] && [ "$nbad" -eq 0 ] || exit 1
exit 0
