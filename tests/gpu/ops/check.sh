#!/bin/sh
# make check's run of the differential GPU test: bundles of every
# tests/gpu/ops/*.tile into tests/gpu/ops/bundles/ (build tree) with the
# tree's tilec, then difftest against the interpreter: 0 pass, 1 fail.
# With a GPU the bundles run there. Without one, the same kernels run on
# simulated warps (tests/gpu/ops/sim: their LLVM IR rebuilt for the host
# with llc, one pthread per GPU thread), built here into
# tests/gpu/ops/bundles/sim/ where LLVM's llc, a C compiler and python3
# are at hand; failing that, every case runs on the interpreter only and
# the test skips (77).
#
# Every file is built for sm_90 but those of $per_arch below — the
# tensor-core loops and their forms (dot, early, induction, persist,
# pingpong, splitk, styles; users_mma: products as users write them), the FP8 conversions (fp8) and TMA (tma,
# tmalast, tmastore, ws) — built once per architecture of
# $DOT_ARCHS (default "sm_80 sm_90a": mma.sync, ldmatrix and cp.async; on
# sm_90a wgmma where tilec emits it; FP8 in integer arithmetic on sm_80,
# through cvt on sm_90a) into bundles/ARCH/ and bundles/sim/ARCH/, each
# simulated whole. Arguments (file
# names without .tile) restrict the run to those files:
# `DOT_ARCHS=sm_90a sh check.sh dot` (make check-dot DOT_ARCHS=sm_90a).
set -eu
src=${TILE_SRCDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
out=tests/gpu/ops/bundles
# simulated cases fail on a shared-memory hazard between warps
# (sim/warpsim.c's racecheck; WARPSIM_RACECHECK=0 runs without)
WARPSIM_RACECHECK=${WARPSIM_RACECHECK-1}
export WARPSIM_RACECHECK
archs=${DOT_ARCHS-sm_80 sm_90a}
per_arch=" dot early fp8 induction persist pingpong splitk styles tma tmalast tmastore users_mma ws "
# per_arch files built once more for sm_90a with --warp-specialize too
# (a producer warpgroup issuing their TMA copies), into the pseudo
# architecture sm_90a+ws's directories
ws_also=" persist tma "
tilec=${TILEC:-./tilec}
cc=${CC:-cc}
sim=$out/sim
mkdir -p "$out"

# The files to run: every one, or those named.
files=
for f in "$src"/tests/gpu/ops/*.tile; do
    b=$(basename "$f" .tile)
    if [ $# -gt 0 ]; then
        case " $* " in *" $b "*) ;; *) continue ;; esac
    fi
    files="$files $b"
done

# (name, arch) pairs: name ARCH, one a line (ARCH sm_90a+ws: sm_90a
# with --warp-specialize)
targets() {
    for b in $files; do
        case "$per_arch" in
        *" $b "*) for a in $archs; do
                echo "$b $a"
                case "$a$ws_also" in sm_90a*" $b "*) echo "$b sm_90a+ws" ;; esac
            done ;;
        *) echo "$b" ;;
        esac
    done
}

# A file's first line `// tilec: OPTIONS` gives tilec more options for
# it (tma.tile: --tma), for its bundles and its simulation alike; the
# pseudo architecture sm_90a+ws adds --warp-specialize.
flags_of() {
    sed -n '1s|^// tilec: ||p' "$src/tests/gpu/ops/$1.tile"
    case ${2:-} in *+ws) echo --warp-specialize ;; esac
}
# tilec's --arch for a target's ARCH (none: sm_90)
arch_of() {
    set -- "${1%+ws}"
    echo "${1:-sm_90}"
}

targets | while read -r b a; do
    mkdir -p "$out${a:+/$a}"
    # shellcheck disable=SC2046
    "$tilec" --arch="$(arch_of "$a")" $(flags_of "$b" "$a") -o "$out${a:+/$a}/$b.tlb" \
        "$src/tests/gpu/ops/$b.tile"
done

# The simulation's libraries (sim/build.sh, shared with
# tests/fuzz/gen-run.sh). Without the tools (llc with an X86 target, a C
# compiler with _Float16, python3) the run is left to the interpreter
# only; with them, any step failing is an error.
build_sim() {
    sh "$src/tests/gpu/ops/sim/build.sh" tools || return 1
    sh "$src/tests/gpu/ops/sim/build.sh" lib "$sim" || return 2
    targets | while read -r b a; do
        TILEC_FLAGS=$(flags_of "$b" "$a" | tr '\n' ' ') sh "$src/tests/gpu/ops/sim/build.sh" \
            kernel "$sim${a:+/$a}" "$src/tests/gpu/ops/$b.tile" "$(arch_of "$a")" || exit 2
    done
}
built=0
build_sim || built=$?
case $built in
0) ;;
1) echo "check.sh: simulated warps not built; interpreter only"; sim= ;;
*) echo "check.sh: building the simulation of $(targets | tr '\n' ' ')failed" >&2; exit 1 ;;
esac

# With the tensor-core file: the simulated wgmma against plain products
# (sim/wgmma_check.c, through sim/wgmma.ll's inline asm), over the forms
# tilec does not emit; and the simulated TMA loads and mbarriers against
# boxes computed by sim/tma_check.c (through sim/tma.ll's inline asm).
# Each: NAME.ll through x86.py and llc into NAME.so, NAME_check built and
# run on it.
sim_check() {
    sh "$src/tests/gpu/ops/sim/build.sh" ll "$sim" "$src/tests/gpu/ops/sim/$1.ll" &&
        $cc -std=c11 -O1 -o "$sim/$1_check" "$src/tests/gpu/ops/sim/$1_check.c" -ldl &&
        "$sim/$1_check" "$sim/$1.so"
}
sim_status=77
case "$per_arch" in *" dot "*)
    case " $files " in *" dot "*)
        if [ -n "$sim" ]; then
            sim_status=0
            sim_check wgmma || sim_status=1
            sim_check tma || sim_status=1
        fi ;;
    esac ;;
esac

# One difftest per architecture; 1 if any failed, 77 if all skipped.
status=$sim_status
general=
for b in $files; do
    case "$per_arch" in *" $b "*) ;; *) general="$general $src/tests/gpu/ops/$b.tile" ;; esac
done
case " $archs " in *" sm_90a "*) wsarch=sm_90a+ws ;; *) wsarch= ;; esac
for a in "" $archs $wsarch; do
    list=$general
    if [ -n "$a" ]; then
        list= want=$per_arch
        [ "$a" = sm_90a+ws ] && want=$ws_also
        for b in $files; do
            case "$want" in *" $b "*) list="$list $src/tests/gpu/ops/$b.tile" ;; esac
        done
        echo "check.sh: --arch=$a:$list"
    fi
    [ -n "$list" ] || continue
    rc=0
    # shellcheck disable=SC2086
    # (the tensor-core files must run on the simulation whole: -r)
    ./tests/gpu/ops/difftest ${sim:+-x "$sim${a:+/$a}"} ${sim:+${a:+-r}} "$out${a:+/$a}" $list ||
        rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then status=1
    elif [ $rc -eq 0 ] && [ $status -eq 77 ]; then status=0
    fi
done
exit $status
