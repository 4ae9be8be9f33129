#!/bin/bash
# Session 49's device calls (carry ["build-s49"]). Built here by
#   for f in users_mma:wsx1 tma:wsx2 dot:wsx3 persist:wsx4; do   # the files with
#       (echo "// tilec: --warp-specialize"; sed '/^\/\/ tilec: /d' \
#        tests/gpu/ops/${f%%:*}.tile) > tests/gpu/ops/${f#*:}.tile   # the flag (tma: --tma too)
#   done
#   bash bench/abbuild.sh build-s49 --att "64 64 2;64 128 2;128 128 2;64 128 3" \
#       --ops "wsx1 wsx2 wsx3 wsx4 ws" last= ws=--warp-specialize
# (the call timed the s3 matmul tile and attention's 128x128 s2 tiles in
# build-s49/ab; the other tiles were moved to build-s49x/ and timed in a
# later call with `python3 bench/abvariants.py build-s49x all last`):
#   bash bench/results/2026-12-08-session49-gpu.sh ws
#       the ops files against the interpreter at sm_90a, compute-sanitizer
#       racecheck over ws.tile, then bench/abvariants.py over
#       build-s49/ab: `ws` (--warp-specialize) beside the default `last`
cd "$(dirname "$0")/../.."
o=build-s49
export TILE_STDLIB=$PWD/stdlib TILE_LIBDIR=$PWD/$o PYTHONPATH=$PWD/python:$PWD/bench
case ${1:-ws} in
ws)
    bash bench/abcheck.sh $o racecheck:ws
    timeout 330 python3 bench/abvariants.py $o/ab "${2:-all}" last
    ;;
esac
