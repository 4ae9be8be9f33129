"""Session 31, call 7: is the rotation itself slow for a four-access row
kernel? bench/results/2026-12-05-session31-lnrw.tile (layernorm with
weights and bias per row: one offset class, so the generic variant rotates
all four accesses) built by f34d049's tilec, 4096 rows, 8 warps; columns
4093/4095 (generic, BLOCK 4096) against 4096 (aligned variant, same
BLOCK), 4097/4099 (generic, BLOCK 8192) against 4104 (aligned, same BLOCK).
Outputs checked against float64 first; best of three do_bench medians.

    TILE_LIBDIR=build-s31ab4 PYTHONPATH=python:bench python3 THIS build-s31ab4/ab"""
import sys

import torch

import tile
from abtime import check_then_time

d = sys.argv[1]
eps, rows = 1e-5, 4096
print("| cols | BLOCK | µs | GB/s |\n| ---: | ---: | ---: | ---: |", flush=True)
for n in (4096, 4093, 4095, 4104, 4097, 4099):
    B = 4096 if n <= 4096 else 8192
    x, w, b = (torch.randn(rows, n, device="cuda", dtype=torch.float16) for _ in range(3))
    y = torch.empty_like(x)
    xd = x.double()
    mu = xd.mean(1, keepdim=True)
    ref = (xd - mu) / torch.sqrt(((xd - mu) ** 2).mean(1, keepdim=True) + eps) * w.double() \
        + b.double()
    k = tile.load(f"{d}/lnrw-b{B}.tlb").lnrw

    def check(name, r):
        err = (y.double() - ref).abs().max().item()
        y.fill_(float("nan"))
        return None if err < 3e-2 else f"max abs err {err:.2e}"
    y.fill_(float("nan"))
    best = check_then_time({"tile": lambda: k(y, x, w, b, rows, n, n, eps)}, check)
    for name, ms in best.items():
        print(f"| {n} | {B} | {ms * 1e3:.1f} | {4 * rows * n * 2 / ms / 1e6:.0f} |", flush=True)
    del x, w, b, y, xd, ref
