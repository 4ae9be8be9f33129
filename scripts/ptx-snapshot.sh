#!/bin/sh
# ptx-snapshot.sh DIR — the safety net of refactorings that must not change
# code generation: writes DIR/ARCH/NAME.ptx for every example, every
# tests/gpu/ops kernel file, every lit input and every generated program
# kept in tests/fuzz (regress, gpu-only) that compiles, for sm_80,
# sm_90 and sm_90a, with the tree's tilec ($TILEC, default ./tilec). A
# file that does not compile records tilec's message instead (NAME.err).
# Compare two snapshots with `diff -r OLD NEW`.
set -u
out=${1:?usage: $0 DIR}
tilec=${TILEC:-./tilec}
export TILE_STDLIB=${TILE_STDLIB:-$PWD/stdlib}
for arch in sm_80 sm_90 sm_90a; do
    mkdir -p "$out/$arch"
    for f in examples/*.tile tests/gpu/ops/*.tile $(find tests/lit -name '*.tile' | sort) \
        tests/fuzz/regress/*.tile tests/fuzz/gpu-only/*.tile; do
        name=$(echo "$f" | tr '/' '_')
        "$tilec" --arch=$arch --emit=ptx -o "$out/$arch/${name%.tile}.ptx" "$f" \
            2>"$out/$arch/${name%.tile}.err" || true
        [ -s "$out/$arch/${name%.tile}.err" ] || rm -f "$out/$arch/${name%.tile}.err"
    done
done
echo "$out: $(find "$out" -name '*.ptx' | wc -l) PTX files, $(find "$out" -name '*.err' | wc -l) errors"
