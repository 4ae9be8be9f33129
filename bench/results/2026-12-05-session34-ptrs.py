"""Session 34: a matmul whose pointer tiles the loop steps (Triton's
tutorial form, -session34-ptrs.tile) built before plan/induction.c
("old": no ring, its loads wait every iteration) and after ("new":
cp.async rings), beside examples/matmul.tile at the same tile (128 x 256
x 64, 8 warps, 3 stages: TMA rings) and cuBLAS. Outputs poisoned and
checked against float64 first, then best of three alternated do_bench
medians (bench/abtime.py).

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS OLD.tlb NEW.tlb MM_DIR"""
import os
import sys

import tile
from abtime import check_then_time, mm_case, mm_check

old = tile.load(sys.argv[1]).matmul_ptrs
new = tile.load(sys.argv[2]).matmul_ptrs
mm = tile.load(os.path.join(sys.argv[3], "mm-old-128x256x64-w8-s3.tlb")).matmul
print("| shape | system | µs | TFLOP/s |\n| --- | --- | ---: | ---: |", flush=True)
for M, N, K in ((4096, 4096, 4096), (8192, 8192, 8192), (4104, 4104, 4104)):
    a, b, c, ref, scale, cublas = mm_case(M, N, K)
    fns = {"cuBLAS": cublas, "matmul.tile": lambda: mm(c, a, b, M, N, K, K, N, N),
           "pointers stepped, old": lambda: old(c, a, b, M, N, K, K, N, N),
           "pointers stepped, new": lambda: new(c, a, b, M, N, K, K, N, N)}
    c.fill_(float("nan"))
    best = check_then_time(fns, mm_check(c, ref, scale))
    for name, ms in best.items():
        print(f"| {M}x{N}x{K} | {name} | {ms * 1e3:.1f} | {2 * M * N * K / ms / 1e9:.0f} |",
              flush=True)
    del a, b, c, ref, fns
