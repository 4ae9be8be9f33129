#!/bin/bash
# Session 34's second device call: TMA against cp.async rings where row
# strides are not multiples of 128 bytes (-session34-stride.py).
# Here: ./tilec --arch=sm_90a [--no-tma] -D T=f16 -D BM=128 -D BN=256 -D BK=64 -D warps=8
#   -D stages=3|4 -o build-s33/nt/{tma,notma,notma4}.tlb examples/matmul.tile
# Device call: run(command="bash bench/results/2026-12-05-session34-gpu2.sh", carry=["build-s33"])
cd "$(dirname "$0")/../.."
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
TILE_LIBDIR=build-s33 PYTHONPATH=python:bench timeout 200 python3 \
    bench/results/2026-12-05-session34-stride.py build-s33/nt
