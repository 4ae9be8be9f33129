"""Session 41, call 4: examples/matmul.tile f16 128x256x64, 8 warps, 3
stages: as written (s3), --persistent as session 41's calls 2-3 built it
(p3: the scalars before the loop recomputed every step, std/grid's
divisions by run-time values), and with those scalars hoisted (p3h:
plan/persist.c; its divisors inverted once), each also with TMA stores
(ts), beside cuBLAS. Outputs checked against float64 first, then best of
three alternated do_bench medians, µs.

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS DIR"""
import os
import sys

import torch
import tile
from abtime import check_then_time, mm_case, mm_check

d = sys.argv[1]
names = ("s3", "p3", "p3h", "p3ts", "p3hts")
ks = {n: tile.load(os.path.join(d, n + ".tlb")).matmul for n in names}
print(torch.cuda.get_device_name(), flush=True)
print("| M x N x K | cuBLAS | " + " | ".join(names) + " |\n| --- | ---: |" + " ---: |" * len(names),
      flush=True)
for M, N, K in ((4096, 4096, 4096), (8192, 8192, 4096), (4096, 4096, 1024)):
    a, b, c, ref, scale, cublas = mm_case(M, N, K)
    fns = {"cuBLAS": cublas}
    for n in names:
        fns[n] = (lambda n: lambda: ks[n](c, a, b, M, N, K, K, N, N))(n)
    c.fill_(float("nan"))
    best = check_then_time(fns, mm_check(c, ref, scale))
    row = " | ".join(f"{best[n] * 1e3:.1f}" if n in best else "WRONG" for n in ("cuBLAS",) + names)
    print(f"| {M}x{N}x{K} | {row} |", flush=True)
    del a, b, c, ref, fns
