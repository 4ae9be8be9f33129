"""Session 35: examples/torch/mlp.tile's matmul_strided (strides for every
dimension; its unit-stride variants now fill their rings by TMA where
they read a unit stride through a multiplier the guard holds equal to 1)
built at 8d6f419 ("old") and now ("new"), one configuration each for
f32 (tf32: 128 x 256 x 32, 8 warps, 4 stages, the training step's) and
f16 (128 x 256 x 64, 8 warps, 3 stages), beside cuBLAS (torch.matmul on
the same views). Operands row-major (NN), B K-major (NT: x @ W^T, the
input gradient) and A M-major (TN: A^T @ g, the weight gradient).
Outputs poisoned and checked against float64 first, then best of three
alternated do_bench medians.

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS DIR
    (DIR/{old,new}-{f32,f16}.tlb)"""
import os
import sys

import torch
import tile
from abtime import check_then_time, mm_check

torch.backends.cuda.matmul.allow_tf32 = True   # cuBLAS in TF32 too

d = sys.argv[1]
print("| dtype | M x N x K | layout | system | µs | TFLOP/s |\n"
      "| --- | --- | --- | --- | ---: | ---: |", flush=True)
for dt, name, shapes in ((torch.float32, "f32", ((4096, 1024, 4096), (4096, 4096, 4096))),
                         (torch.float16, "f16", ((4096, 4096, 4096),))):
    ks = {s: tile.load(os.path.join(d, f"{s}-{name}.tlb")).matmul_strided
          for s in ("old", "new")}
    for M, N, K in shapes:
        for layout in ("NN", "NT", "TN"):
            a = torch.randn(M, K, device="cuda", dtype=dt) if layout[0] == "N" else \
                torch.randn(K, M, device="cuda", dtype=dt).t()
            b = torch.randn(K, N, device="cuda", dtype=dt) if layout[1] == "N" else \
                torch.randn(N, K, device="cuda", dtype=dt).t()
            c = torch.empty(M, N, device="cuda", dtype=dt)
            ref = a.double() @ b.double()
            scale = ref.abs().max().item()
            ab, bb = a if layout[0] == "N" else a.t(), b if layout[1] == "N" else b.t()
            st = (a.stride(0), a.stride(1), b.stride(0), b.stride(1))
            fns = {"cuBLAS": lambda: torch.matmul(a, b)}
            for s, k in ks.items():
                fns["tile " + s] = (lambda k=k: k(c, ab, bb, M, N, K, *st))
            c.fill_(float("nan"))
            best = check_then_time(fns, mm_check(c, ref, scale, 2e-3 if name == "f16" else 5e-3))
            for sysname, ms in best.items():
                print(f"| {name} | {M}x{N}x{K} | {layout} | {sysname} | {ms * 1e3:.1f} | "
                      f"{2 * M * N * K / ms / 1e9:.0f} |", flush=True)
            del a, b, c, ref, fns
