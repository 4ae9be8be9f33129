"""Session 32: examples/matmul.tile f16 over ragged cubes (the generic
variant: rows of odd length, every operand row at another alignment;
then N alone and K alone odd: only B's rows, or both operands' rows,
misaligned),
before ("old", 058b468: each element its own 2-byte load) and after
("new": aligned 16-byte chunks joined by shifts), per tile, beside cuBLAS
and the aligned 4096^3 neighbour. Outputs poisoned and checked against
float64 first (bench/abtime.py), then best of three alternated do_bench
medians.

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS BUNDLE_DIR"""
import glob
import os
import sys

import tile
import torch
from abtime import check_then_time, mm_case

d = sys.argv[1]
print("| shape | system | µs | TFLOP/s |\n| --- | --- | ---: | ---: |", flush=True)
for M, N, K in ((4093, 4093, 4093), (4097, 4097, 4097), (4096, 4093, 4096), (4096, 4096, 4093),
                (4096, 4096, 4096)):
    a, b, c, ref, scale, cublas = mm_case(M, N, K)
    fns = {"cuBLAS": cublas}
    for p in sorted(glob.glob(os.path.join(d, "mm-*.tlb"))):
        if M == N == K == 4096 and ("-old-" in p or "-w32-" in p):
            continue   # the aligned variant: the same code in all
        k = tile.load(p).matmul
        fns[os.path.basename(p)[:-4]] = (lambda k=k: k(c, a, b, M, N, K, K, N, N))

    def check(name, r):
        got = r if isinstance(r, torch.Tensor) else c
        err = ((got.double() - ref).abs().max() / scale).item()
        c.fill_(float("nan"))
        return None if err < 2e-3 else f"rel err {err:.2e}"
    c.fill_(float("nan"))
    best = check_then_time(fns, check)
    for name, ms in best.items():
        print(f"| {M}x{N}x{K} | {name} | {ms * 1e3:.1f} | {2 * M * N * K / ms / 1e9:.0f} |",
              flush=True)
    del a, b, c, ref
