"""Session 36, call 2: mlp.tile's matmul_strided (f32, tf32, 128 x 256 x 32,
8 warps) on A^T @ B (TN: A M-major, B N-major, the training step's
weight gradients) as HEAD builds it (old: B's 32 x 256 tile moved K-major
by the threads each iteration) and swapped (new: C^T = B^T A^T, B^T read
into registers, A's 32 x 128 tile moved instead), 3 and 4 stages, beside
cuBLAS (allow_tf32). Outputs poisoned and checked against float64 first,
then best of three alternated do_bench medians.

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS DIR (DIR/{old,new}-s{3,4}.tlb)"""
import os
import sys

import torch
import tile
from abtime import check_then_time, mm_check

torch.backends.cuda.matmul.allow_tf32 = True
d = sys.argv[1]
ks = {f"{v} s{s}": tile.load(os.path.join(d, f"{v}-s{s}.tlb")).matmul_strided
      for v in ("old", "new") for s in (3, 4)}
print("| M x N x K | system | µs | TFLOP/s |\n| --- | --- | ---: | ---: |", flush=True)
for M, N, K in ((1024, 8192, 4096), (4096, 1024, 4096), (1024, 4096, 4096), (4096, 4096, 4096)):
    at = torch.randn(K, M, device="cuda")      # Tile takes the buffer whole
    a = at.t()
    b = torch.randn(K, N, device="cuda")
    c = torch.empty(M, N, device="cuda")
    ref = a.double() @ b.double()
    scale = ref.abs().max().item()
    args = (c, at, b, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1))
    fns = {"cuBLAS": lambda: torch.matmul(a, b)}
    for n, k in ks.items():
        fns["tile " + n] = lambda k=k: k(*args)
    c.fill_(float("nan"))
    best = check_then_time(fns, mm_check(c, ref, scale, 5e-3))
    for n, ms in best.items():
        print(f"| {M}x{N}x{K} | {n} | {ms * 1e3:.1f} | {2 * M * N * K / ms / 1e9:.0f} |", flush=True)
    del a, b, c, ref, fns
