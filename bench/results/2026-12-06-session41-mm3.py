"""Session 41, call 3: matmul (examples/matmul.tile 128x256x64, 8 warps)
at 3 and 4 stages, each with its stores through TMA (tilec --tma-store:
`ts`; `tsf`: the same built by commit 5749215's tilec, whose programs
end with a full wait_group 0 rather than wait_group.read 0) and
without, f16 and bf16, beside cuBLAS (torch.matmul), at the
issue's sizes and their neighbours. Outputs poisoned and checked against
float64 first (relative error below 2e-3, bf16 1e-2: call 3 ran with
2e-3 for both, which refused every bf16 output, cuBLAS's too, and
stopped), then best of three alternated do_bench medians, µs.

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS DIR"""
import os
import sys

import torch
import tile
from abtime import check_then_time, mm_case, mm_check

d = sys.argv[1]
names = ("s3", "s3ts", "s3tsf", "s4", "s4ts", "s4tsf")
print(torch.cuda.get_device_name(), flush=True)
print("| T | M x N x K | cuBLAS | " + " | ".join(names) + " | best Tile / cuBLAS |\n"
      "| --- | --- | ---: |" + " ---: |" * len(names) + " ---: |", flush=True)
for T, dt in (("f16", torch.float16), ("bf16", torch.bfloat16)):
    ks = {n: tile.load(os.path.join(d, f"{T}-{n}.tlb")).matmul for n in names}
    shapes = ((4096, 4096, 4096), (8192, 8192, 8192), (4097, 4097, 4097), (4095, 4095, 4095),
              (8191, 8193, 8192), (6144, 6144, 6144), (4000, 4000, 4000))
    for M, N, K in shapes if T == "f16" else shapes[:2]:
        a, b, c, ref, scale, _ = mm_case(M, N, K)
        a, b, c = a.to(dt), b.to(dt), c.to(dt)
        ref = a.double() @ b.double()
        fns = {"cuBLAS": lambda: torch.matmul(a, b)}
        for n in names:
            fns[n] = (lambda n: lambda: ks[n](c, a, b, M, N, K, K, N, N))(n)
        c.fill_(float("nan"))
        best = check_then_time(fns, mm_check(c, ref, scale, 2e-3 if T == "f16" else 1e-2))
        row = " | ".join(f"{best[n] * 1e3:.1f}" if n in best else "WRONG"
                         for n in ("cuBLAS",) + names)
        tile_best = min(best.get(n, float("inf")) for n in names)
        print(f"| {T} | {M}x{N}x{K} | {row} | {best['cuBLAS'] / tile_best:.3f} |", flush=True)
        del a, b, c, ref, fns
