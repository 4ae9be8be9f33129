#!/usr/bin/env bash
# examples-bundles.sh — builds the bundles tests/gpu/examples_gpu runs:
#
#   tests/gpu/examples-bundles.sh TILEC OUTDIR [ARCH]   (ARCH: default sm_90)
#
# one per example and storage type (bias_gelu_bf16 is -D T=bf16,
# layernorm_f16 -D T=f16), and spec.tlb: the LANGUAGE.md examples as
# printed there (the copy in tests/lit/ir/spec-all.tile, which its lit test
# keeps identical), without matmul_bias_relu, whose `dot` the code
# generator does not lower yet. Each bundle is built on its own; a failure
# is reported and the others are still built. Exit status 1 when any
# failed. Runs where tilec runs (LLVM 22); the bundles carry PTX and, when
# ptxas is present, the ARCH cubin.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
tilec=${1:?usage: examples-bundles.sh TILEC OUTDIR [ARCH]}
out=${2:?usage: examples-bundles.sh TILEC OUTDIR [ARCH]}
arch=${3:-sm_90}
export TILE_STDLIB=${TILE_STDLIB:-$here/stdlib}
mkdir -p "$out"
status=0

build() {   # build NAME SOURCE [tilec options...]
    local name=$1 src=$2
    shift 2
    if "$tilec" --arch="$arch" "$@" "$src" -o "$out/$name.tlb"; then
        echo "bundle $out/$name.tlb"
    else
        echo "FAILED: tilec $* $src -o $out/$name.tlb" >&2
        status=1
    fi
}

for e in vadd bias_gelu softmax layernorm cross_entropy stencil dropout transpose; do
    build "$e" "$here/examples/$e.tile"
done
build bias_gelu_bf16 "$here/examples/bias_gelu.tile" -D T=bf16
build layernorm_f16 "$here/examples/layernorm.tile" -D T=f16

# Tensor cores: one tile configuration each (warps and stages still tuned),
# small enough for 48 KiB of static shared memory.
mm="-D BM=64 -D BN=64 -D BK=32"
build matmul "$here/examples/matmul.tile" $mm
build matmul_bf16 "$here/examples/matmul.tile" $mm -D T=bf16
build matmul_f32 "$here/examples/matmul.tile" $mm -D T=f32
build matmul_bias_relu "$here/examples/matmul_bias_relu.tile" $mm
build matmul_gelu "$here/examples/matmul_gelu.tile" $mm
build bmm "$here/examples/bmm.tile" $mm
for d in 64 128; do
    build attention_d$d "$here/examples/attention.tile" -D BM=64 -D BN=64 -D D=$d
    build attention_d${d}_causal "$here/examples/attention.tile" -D BM=64 -D BN=64 -D D=$d -D CAUSAL=true
done

# The spec's examples: everything of spec-all.tile before matmul_bias_relu's
# attributes, without the test's comment lines.
spec="$out/spec.tile"
sed -n '/^@tune(BM/q; /^\/\//d; p' "$here/tests/lit/ir/spec-all.tile" > "$spec"
build spec "$spec"
exit $status
