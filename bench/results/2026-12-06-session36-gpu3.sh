#!/bin/bash
# Session 36's device call 5: every configuration of mlp.tile's
# matmul_strided in bf16 at the training step's products
# (-session36-cfgs.py ... bf16), for the choice of the configurations the
# example offers (its compile is what the wheel's training test waits
# for). Carry build-s36 (as -session36-gpu2.sh).
cd "$(dirname "$0")/../.."
o=build-s36
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$o PYTHONPATH=python:bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
xz -dc $o/torch/mlp-bf16.tlb.xz > /tmp/mlp-bf16.tlb
timeout 240 python3 bench/results/2026-12-06-session36-cfgs.py /tmp/mlp-bf16.tlb bf16
