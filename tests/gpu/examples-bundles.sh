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
build linear_relu "$here/examples/linear_relu.tile" $mm
build bmm "$here/examples/bmm.tile" $mm
for d in 64 128; do
    build attention_d$d "$here/examples/attention.tile" -D BM=64 -D BN=64 -D D=$d
    build attention_d${d}_causal "$here/examples/attention.tile" -D BM=64 -D BN=64 -D D=$d -D CAUSAL=true
done

# Warpgroup MMA (wgmma, --arch=sm_90a; mma.sync elsewhere): tiles that
# take it, each with one configuration (warps and stages rewritten in a
# copy of the source, tilec having no -D for them): two warpgroups and a
# group kept in flight (stages 3 and 4, 128-byte swizzle), one warpgroup
# over two M repeats waiting at once (stages 2, BK 32: 64-byte swizzle).
one_config() {   # one_config SOURCE WARPS STAGES > copy
    sed -E "s/warps = \[[0-9, ]*\]/warps = [$2]/; s/stages = \[[0-9, ]*\]/stages = [$3]/" "$1"
}
one_config "$here/examples/matmul.tile" 8 3 > "$out/matmul_w8s3.tile"
one_config "$here/examples/matmul.tile" 8 4 > "$out/matmul_w8s4.tile"
one_config "$here/examples/matmul_bias_relu.tile" 4 2 > "$out/matmul_bias_relu_w4s2.tile"
build matmul_wg "$out/matmul_w8s3.tile" -D BM=128 -D BN=128 -D BK=64
build matmul_wg_bf16 "$out/matmul_w8s4.tile" -D BM=128 -D BN=256 -D BK=64 -D T=bf16
build matmul_bias_relu_wg "$out/matmul_bias_relu_w4s2.tile" -D BM=128 -D BN=64 -D BK=32
one_config "$here/examples/linear_relu.tile" 8 3 > "$out/linear_relu_w8s3.tile"
build linear_relu_wg "$out/linear_relu_w8s3.tile" -D BM=128 -D BN=256 -D BK=64
# attention's keys in blocks of 128 (D = 128: 128 rows over 8 warps, 2 stages)
one_config "$here/examples/attention.tile" 8 2 > "$out/attention_w8s2.tile"
build attention_d128_wg "$out/attention_w8s2.tile" -D BM=128 -D BN=128 -D D=128
build attention_d128_causal_wg "$out/attention_w8s2.tile" -D BM=128 -D BN=128 -D D=128 -D CAUSAL=true

# The spec's examples: everything of spec-all.tile before matmul_bias_relu's
# attributes, without the test's comment lines.
spec="$out/spec.tile"
sed -n '/^@tune(BM/q; /^\/\//d; p' "$here/tests/lit/ir/spec-all.tile" > "$spec"
build spec "$spec"
exit $status
