"""Session 40, call 1: where matmul's time goes against cuBLAS — a K sweep
at M = N = 4096 (and 8192) separates a per-tile fixed cost (launch,
pipeline fill, epilogue: the intercept of time over K) from the main
loop's rate (the slope). Tile: examples/matmul.tile f16 128x256x64 w8
(s3, s4, --persistent s4) and the same kernel with its store masked off
at run time (bench/results/2026-12-06-session40-mmlim.tile, lim = 0:
the epilogue's global stores skipped, its conversion kept). Outputs
poisoned and checked against float64 first (the lim = 0 kernel is
checked with lim = M), then best of three alternated do_bench medians;
a least-squares line per system last.

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS DIR"""
import os
import sys

import torch
import tile
from abtime import check_then_time, mm_case, mm_check

d = sys.argv[1]
ks = {n: tile.load(os.path.join(d, n + ".tlb")).matmul for n in ("s3", "s4", "pers4")}
lim = tile.load(os.path.join(d, "lim.tlb")).matmul
print(torch.cuda.get_device_name(), flush=True)
print("| M x N x K | system | µs | TFLOP/s |\n| --- | --- | ---: | ---: |", flush=True)
rows = {}
for MN, Ks in ((4096, (512, 1024, 4096, 8192)), (8192, (1024, 4096))):
    for K in Ks:
        M = N = MN
        a, b, c, ref, scale, cublas = mm_case(M, N, K)
        fns = {"cuBLAS": cublas}
        for n, k in ks.items():
            fns["tile " + n] = lambda k=k: k(c, a, b, M, N, K, K, N, N)
        fns["tile s3 stores on"] = lambda: lim(c, a, b, M, N, K, K, N, N, M)
        c.fill_(float("nan"))
        best = check_then_time(fns, mm_check(c, ref, scale))
        best["tile s3 no stores"] = check_then_time(
            {"x": lambda: lim(c, a, b, M, N, K, K, N, N, 0)}, lambda n, r: None)["x"]
        for n, ms in best.items():
            rows.setdefault((MN, n), []).append((K, ms * 1e3))
            print(f"| {M}x{N}x{K} | {n} | {ms * 1e3:.1f} | {2 * M * N * K / ms / 1e9:.0f} |",
                  flush=True)
        del a, b, c, ref, fns

print("\n| M = N | system | intercept µs | µs per 1024 of K | points |\n| ---: | --- | ---: | ---: | ---: |")
for (MN, n), pts in rows.items():
    xs = [k / 1024 for k, _ in pts]
    ys = [t for _, t in pts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sl = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    print(f"| {MN} | {n} | {my - sl * mx:.1f} | {sl:.1f} | {len(pts)} |")
