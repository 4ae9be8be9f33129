#!/bin/bash
# Session 36's device call 2: every configuration of mlp.tile's
# matmul_strided (f32) at the training step's backward products beside
# cuBLAS (-session36-cfgs.py); examples/matmul.tile at 128 x 256 and
# 256 x 128 where B's rows are misaligned (-session36-tiles.py); the
# tile.torch training test (examples/torch/mlp_train.py, size large,
# reduce-overhead) in f32 and bf16 with this tree's bundles; first, TN
# products swapped or not (-session36-tn.py; tn/: mlp.tile f32 128 x 256
# x 32 w8 s3/s4 by HEAD's tilec (old) and with plan/swap_dot.c taking TN
# products (new)).
# Here: build-s36/ (libtile.so; nt/tma.tlb and nt/tma256.tlb:
# examples/matmul.tile -D T=f16 -D BK=64 -D warps=8 -D stages=3 at BM x
# BN 128 x 256 and 256 x 128; torch/*.tlb.xz as scripts/gpu-python.sh's
# torch_bundles makes them). Device call:
# run(command="bash bench/results/2026-12-06-session36-gpu2.sh", carry=["build-s36"])
cd "$(dirname "$0")/../.."
o=build-s36
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$o PYTHONPATH=python:bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/tb
for b in mlp-f32 cross_entropy mlp-bf16 cross_entropy-bf16; do
    xz -dc $o/torch/$b.tlb.xz > /tmp/tb/$b.tlb
done
train() {
    timeout 240 python3 examples/torch/mlp_train.py --device cuda --bundle-dir /tmp/tb \
        --dtype $1 --compile-mode reduce-overhead > /tmp/train-$1.txt 2>&1
    echo "training $1: rc=$?"
    grep -E "^run |^torch eager|^tile eager|^tile compiled|^torch compiled|passed|^FAIL" /tmp/train-$1.txt
}
# most wanted first: the device may be taken back, or its time run out
timeout 100 python3 bench/results/2026-12-06-session36-tn.py $o/tn
[ "${SKIP_TRAIN:-}" ] || train f32
timeout 200 python3 bench/results/2026-12-06-session36-cfgs.py /tmp/tb/mlp-f32.tlb
timeout 90 python3 bench/results/2026-12-06-session36-tiles.py $o/nt
[ "${SKIP_TRAIN:-}" ] || train bf16
