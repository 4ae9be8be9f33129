"""Session 34: what splitting the last partial wave along K buys
(issue 13's 4104^3 point: 561 tiles of 128 x 256 on 132 SMs make 5 waves
where 4096^3's 512 make 4). -session34-splittail.tile is
examples/matmul.tile with programs pid < D computing a tile each and the
other (G - D) tiles shared by S programs each, the last to finish summing
the partials. Beside it: matmul.tile at the same tile (128 x 256 x 64, 8
warps, 3 stages; bundle DIR/mm-old-128x256x64-w8-s3.tlb), the split
kernel with D = G (no split: what its extra code costs), and cuBLAS.
Outputs poisoned and checked against float64 first, then best of three
alternated do_bench medians (bench/abtime.py).

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS SPLIT.tlb MM_DIR"""
import os
import sys

import tile
import torch
from abtime import check_then_time, mm_case

split = tile.load(sys.argv[1]).matmul_split
mm = tile.load(os.path.join(sys.argv[2], "mm-old-128x256x64-w8-s3.tlb")).matmul
BM, BN = 128, 256
sms = torch.cuda.get_device_properties(0).multi_processor_count
P = sms   # one program of this tile per SM (147 KB of shared memory)
print(f"{torch.cuda.get_device_name(0)}: {sms} SMs", flush=True)
print("| shape | tiles | D | S | system | µs | TFLOP/s |\n| --- | ---: | ---: | ---: | --- | ---: | ---: |",
      flush=True)
for M, N, K in ((4104, 4104, 4104), (4096, 4096, 4096), (4224, 4224, 4224), (8200, 8200, 8200),
                (4096, 4104, 4096), (4104, 4096, 4096), (2056, 2056, 8192)):
    a, b, c, ref, scale, cublas = mm_case(M, N, K)
    G = -(-M // BM) * -(-N // BN)
    R = G % P
    S = P // R if R else 1
    D = G - R if S > 1 else G
    plans = {"split": (D, S), "split D=G": (G, 1)}
    if S > 2:
        plans["split S=2"] = (G - R, 2)
    fns = {"cuBLAS": cublas, "matmul.tile": lambda: mm(c, a, b, M, N, K, K, N, N)}
    bufs = {}
    for name, (d, s) in plans.items():
        parts = torch.empty(max((G - d) * s * BM * BN, 1), dtype=torch.float32, device="cuda")
        count = torch.zeros(max(G - d, 1), dtype=torch.int32, device="cuda")
        bufs[name] = (parts, count)
        fns[name] = (lambda d=d, s=s, parts=parts, count=count:
                     split(c, a, b, M, N, K, K, N, N, parts, count, d, s))

    def check(name, r):
        got = r if isinstance(r, torch.Tensor) else c
        err = ((got.double() - ref).abs().max() / scale).item()
        c.fill_(float("nan"))
        if name in bufs and bufs[name][1].abs().sum().item():
            return "counts not reset"
        return None if err < 2e-3 else f"rel err {err:.2e}"
    c.fill_(float("nan"))
    best = check_then_time(fns, check)
    for name, ms in best.items():
        d, s = plans.get(name, ("", ""))
        print(f"| {M}x{N}x{K} | {G} | {d} | {s} | {name} | {ms * 1e3:.1f} | "
              f"{2 * M * N * K / ms / 1e9:.0f} |", flush=True)
    del a, b, c, ref, bufs, fns
