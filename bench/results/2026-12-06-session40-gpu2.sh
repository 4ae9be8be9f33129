#!/bin/bash
# Session 40's call 2: generated programs with the new stencil, weights,
# neighbour-column and while-loop forms (tests/fuzz/tilegen.py at eb0b659,
# --templates tile2d,row,loop, seeds from 64000) on the GPU against the
# interpreter. Here: each seed's program generated and compiled for sm_90
# into build-s40/gen/ (gSEED.tile, gSEED.tlb; seeds whose bundle is
# missing are left out).
# Device call: run(command="bash bench/results/2026-12-06-session40-gpu2.sh", carry=["build-s40"])
cd "$(dirname "$0")/../.."
o=build-s40
export TILE_STDLIB=$PWD/stdlib
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
files=$(for t in $o/gen/g*.tlb; do echo "${t%.tlb}.tile"; done)
echo "programs: $(echo $files | wc -w)"
timeout 400 $o/difftest -q $o/gen $files 2>&1 | tail -15
