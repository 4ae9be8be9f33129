"""Session 40, call 4: what the epilogue's stores cost (call 1: Tile's
fixed cost over cuBLAS's is its stores). At M = N = 4096 and 8192, K =
1024 (the stores' share largest): examples/matmul.tile's form with the
store masked by `lim` (bench/results/2026-12-06-session40-mmlim.tile),
f16 128x256x64 w8 s3 and --persistent s4, and the same kernel storing
the f32 accumulator (-mmlim32.tile: twice the bytes), each with its
stores on (lim = M) and off (lim = 0). If the f32 output's stores cost
about twice the f16 output's, the bytes are what costs (a bandwidth);
if the persistent kernel's stores cost what the plain one's do, its
next tile's copies in flight do not hide them. Outputs checked against
float64 first (stores on), then best of three alternated do_bench
medians, µs. The persistent bundle is DIR/PERS.tlb (default limp4; it
was built at 4 stages, where the epilogue does not fit beside the rings
and tilec built the kernel as written: session 41 runs limp3).

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS DIR [PERS]"""
import os
import sys

import torch
import tile
from abtime import check_then_time, mm_case, mm_check

d = sys.argv[1]
pers = sys.argv[2] if len(sys.argv) > 2 else "limp4"
ks = {n: tile.load(os.path.join(d, n + ".tlb")).matmul for n in ("lim", pers, "lim32")}
pn = "f16 pers s" + pers[-1]
print(torch.cuda.get_device_name(), flush=True)
print("| M x N x K | kernel | stores on µs | stores off µs | stores cost µs |\n"
      "| --- | --- | ---: | ---: | ---: |", flush=True)
for MN, K in ((4096, 1024), (8192, 1024), (4096, 4096)):
    M = N = MN
    a, b, c, ref, scale, cublas = mm_case(M, N, K)
    c32 = torch.empty(M, N, device="cuda", dtype=torch.float32)
    fns = {"cuBLAS": cublas,
           "f16 s3 on": lambda: ks["lim"](c, a, b, M, N, K, K, N, N, M),
           pn + " on": lambda: ks[pers](c, a, b, M, N, K, K, N, N, M)}
    c.fill_(float("nan"))
    best = check_then_time(fns, mm_check(c, ref, scale))
    c32.fill_(float("nan"))
    best.update(check_then_time({"f32 s3 on": lambda: ks["lim32"](c32, a, b, M, N, K, K, N, N, M)},
                                mm_check(c32, ref, scale)))
    off = check_then_time({
        "f16 s3 off": lambda: ks["lim"](c, a, b, M, N, K, K, N, N, 0),
        pn + " off": lambda: ks[pers](c, a, b, M, N, K, K, N, N, 0),
        "f32 s3 off": lambda: ks["lim32"](c32, a, b, M, N, K, K, N, N, 0)}, lambda n, r: None)
    print(f"| {M}x{N}x{K} | cuBLAS | {best['cuBLAS'] * 1e3:.1f} | | |", flush=True)
    for n in ("f16 s3", pn, "f32 s3"):
        on, of = best.get(n + " on", float("nan")) * 1e3, off[n + " off"] * 1e3
        print(f"| {M}x{N}x{K} | {n} | {on:.1f} | {of:.1f} | {on - of:.1f} |", flush=True)
    del a, b, c, c32, ref, fns
