#!/bin/bash
# Builds build-s46/ for bench/results/2026-12-07-session46-gpu.sh, in a
# built checkout of this session's tree:
#   bash bench/results/2026-12-07-session46-prepare.sh
# (bench/abbuild.sh): examples/matmul.tile f16 at 128x256x64, 8 warps, 3
# and 4 stages, built
#   last   by default (counted slots)
#   cta    --slot-sync=cta
#   p      --persistent (its walk's slots now counted too)
#   pcta   --persistent --slot-sync=cta (the persistent loop as before)
#   pts    --persistent --tma-store
# examples/attention.tile (8 warps; D/BN/stages 64/64/2, 64/128/2,
# 128/128/2, causal and not) built
#   last   by default
#   pp     --pingpong (warpgroups taking turns, beside counted slots)
# and the differential tests' bundles of persist, tma, tmalast, dot and
# pingpong for sm_90a.
set -eu
cd "$(dirname "$0")/../.."
bash bench/abbuild.sh build-s46 --att "" --ops "persist tma tmalast dot pingpong" \
    last= cta=--slot-sync=cta p=--persistent "pcta=--persistent --slot-sync=cta" \
    "pts=--persistent --tma-store" >/dev/null
bash bench/abbuild.sh build-s46 --add --mm "" last= pp=--pingpong >/dev/null
du -sh build-s46
