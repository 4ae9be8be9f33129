"""Session 34: why 4104^3 runs at 0.66 of 4096^3 when splitting the last
wave does not help (-session34-splittail.py): examples/matmul.tile
(128 x 256 x 64, 8 warps) with TMA rings (the default) and with cp.async
rings (--no-tma; 3 and 4 stages), at shapes whose row strides are or are
not multiples of 128 bytes, beside cuBLAS. Outputs poisoned and checked
against float64 first, then best of three alternated do_bench medians.

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS BUNDLE_DIR"""
import os
import sys

import tile
from abtime import check_then_time, mm_case, mm_check

d = sys.argv[1]
ks = {n: tile.load(os.path.join(d, n + ".tlb")).matmul for n in ("tma", "notma", "notma4")}
print("| shape | system | µs | TFLOP/s |\n| --- | --- | ---: | ---: |", flush=True)
for M, N, K in ((4096, 4096, 4096), (4096, 4104, 4096), (4096, 4096, 4104), (4104, 4104, 4104),
                (4096, 4160, 4096), (8200, 8200, 8200)):
    a, b, c, ref, scale, cublas = mm_case(M, N, K)
    fns = {"cuBLAS": cublas}
    for n, k in ks.items():
        fns[n] = (lambda k=k: k(c, a, b, M, N, K, K, N, N))
    c.fill_(float("nan"))
    best = check_then_time(fns, mm_check(c, ref, scale))
    for name, ms in best.items():
        print(f"| {M}x{N}x{K} | {name} | {ms * 1e3:.1f} | {2 * M * N * K / ms / 1e9:.0f} |",
              flush=True)
    del a, b, c, ref, fns
