#!/bin/bash
# Session 41's call 1: the epilogue's stores (-session40-stores.py with limp3; session
# 40's call 4 with its persistent kernel at 3 stages: at 4 the epilogue's
# scratch beside the rings does not fit and tilec built it as written).
# Here, beside session 40's build-s40 (-session40-prepare.sh):
#   t="--arch=sm_90a -D T=f16 -D BM=128 -D BN=256 -D BK=64 -D warps=8 -D stages=3"
#   ./tilec $t -o build-s40/mm/lim.tlb bench/results/2026-12-06-session40-mmlim.tile
#   ./tilec $t -o build-s40/mm/lim32.tlb bench/results/2026-12-06-session40-mmlim32.tile
#   ./tilec $t --persistent -o build-s40/mm/limp3.tlb bench/results/2026-12-06-session40-mmlim.tile
# Device call: run(command="bash bench/results/2026-12-06-session41-gpu1.sh", carry=["build-s40"])
cd "$(dirname "$0")/../.."
o=build-s40
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 240 python3 bench/results/2026-12-06-session40-stores.py $o/mm limp3
