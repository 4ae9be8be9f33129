#!/bin/bash
# Session 40's call 4: the epilogue's stores (-session40-stores.py).
# Here (after -session40-prepare.sh): t="--arch=sm_90a -D T=f16 -D BM=128 -D BN=256 -D BK=64 -D warps=8"
#   ./tilec $t -D stages=3 -o build-s40/mm/lim32.tlb bench/results/2026-12-06-session40-mmlim32.tile
#   ./tilec $t -D stages=4 --persistent -o build-s40/mm/limp4.tlb bench/results/2026-12-06-session40-mmlim.tile
# Device call: run(command="bash bench/results/2026-12-06-session40-gpu4.sh", carry=["build-s40"])
cd "$(dirname "$0")/../.."
o=build-s40
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 bench/results/2026-12-06-session40-stores.py $o/mm
