#!/bin/bash
# Session 41's call 4, lean (the session's device time nearly spent):
# -session41-pers.py only. Carry build-s41 (from -session41-prepare.sh,
# plus mm/p3h.tlb and p3hts.tlb as -session41-ncu.sh says).
# run(command="bash bench/results/2026-12-06-session41-gpu4.sh", carry=["build-s41"])
cd "$(dirname "$0")/../.."
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/build-s41 PYTHONPATH=$PWD/python:$PWD/bench
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 python3 bench/results/2026-12-06-session41-pers.py build-s41/mm
