#!/bin/bash
# Session 31, device call 5: generated programs (tests/fuzz/tilegen.py,
# every template) at f34d049 compiled on the GPU machine and each case run
# on the interpreter and the GPU (scripts/gpu-fuzz.sh run), for the packed
# masks of realigned accesses.
# Here: STATIC_TILEC=<tilec built --enable-static-llvm at f34d049> \
#       PTXAS=<ptxas 13.5> scripts/gpu-fuzz.sh prepare     # build-gpu-fuzz/
# Device call: run(command="bash bench/results/2026-12-05-session31-run5.sh",
#                  carry=["build-gpu-fuzz"], timeout_s=420)
# (run as: BUDGET=200 scripts/gpu-fuzz.sh run 50000 50999 | tail -4)
cd "$(dirname "$0")/../.."
BUDGET=200 scripts/gpu-fuzz.sh run 50000 50999 2>&1 | tail -4
