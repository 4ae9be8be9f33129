"""Session 36, call 2: examples/matmul.tile f16 with TMA rings at 128 x 256
(B two thirds of the rows a k-step reads) and at 256 x 128 (one third),
64-wide K steps, 8 warps, 3 stages, beside cuBLAS, where B's rows are
or are not 128-byte aligned: does the taller tile take B's misaligned
boxes' cost down (session 36, call 1: at N = 4104 B's boxes cost 2.8x
the L2 requests)? Outputs poisoned and checked against float64 first,
then best of three alternated do_bench medians.

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS DIR (DIR/tma.tlb, DIR/tma256.tlb)"""
import os
import sys

import torch
import tile
from abtime import check_then_time, mm_case, mm_check

d = sys.argv[1]
ks = {"128x256": tile.load(os.path.join(d, "tma.tlb")).matmul,
      "256x128": tile.load(os.path.join(d, "tma256.tlb")).matmul}
print("| M x N x K | system | µs | TFLOP/s |\n| --- | --- | ---: | ---: |", flush=True)
for M, N, K in ((4096, 4096, 4096), (4096, 4104, 4096), (4096, 4160, 4096), (4104, 4104, 4104),
                (4096, 4096, 4104), (8200, 8200, 8200)):
    a, b, c, ref, scale, cublas = mm_case(M, N, K)
    fns = {"cuBLAS": cublas}
    for n, k in ks.items():
        fns["tile " + n] = lambda k=k: k(c, a, b, M, N, K, K, N, N)
    c.fill_(float("nan"))
    best = check_then_time(fns, mm_check(c, ref, scale))
    for n, ms in best.items():
        print(f"| {M}x{N}x{K} | {n} | {ms * 1e3:.1f} | {2 * M * N * K / ms / 1e9:.0f} |", flush=True)
    del a, b, c, ref, fns
