"""Session 35 (prepared in session 34, extended): why 4104^3 runs at 0.66
of 4096^3 when splitting the last wave does not help
(-session34-splittail.py). examples/matmul.tile (128 x 256 x 64, 8 warps)
with TMA rings (the default, 3 stages) and with cp.async rings (--no-tma;
3 and 4 stages), beside Triton (bench.py's tr_matmul, the same algorithm
and tile, 3 and 4 stages) and cuBLAS, at shapes whose row strides are or
are not multiples of 128 bytes (16, 32 and 64 modulo 128). Operands may
be views of wider buffers, so that B's loads and C's stores are told
apart (ldb != ldc). Outputs poisoned and checked against float64 first,
then best of three alternated do_bench medians.

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS BUNDLE_DIR"""
import os
import sys

import torch
import tile
import bench
from abtime import check_then_time, mm_check

bench.setup_torch()
bench.define_triton_matmul()
tr = bench.tr_matmul
d = sys.argv[1]
ks = {n: tile.load(os.path.join(d, n + ".tlb")).matmul for n in ("tma", "notma", "notma4")}


def buffer(rows, cols, ld):
    """A [rows, ld] buffer (Tile takes it whole: its callers pass contiguous
    tensors) and its [rows, cols] view."""
    whole = torch.randn(rows, ld, device="cuda", dtype=torch.float16)
    return whole, whole[:, :cols]


print("| M x N x K | lda, ldb, ldc | system | µs | TFLOP/s |\n"
      "| --- | --- | --- | ---: | ---: |", flush=True)
for M, N, K, lda, ldb, ldc in (
        (4096, 4096, 4096, 4096, 4096, 4096),
        (4096, 4104, 4096, 4096, 4104, 4104),
        (4096, 4104, 4096, 4096, 4104, 4160),
        (4096, 4104, 4096, 4096, 4160, 4104),
        (4096, 4112, 4096, 4096, 4112, 4112),
        (4096, 4128, 4096, 4096, 4128, 4128),
        (4096, 4096, 4104, 4104, 4096, 4096),
        (4104, 4104, 4104, 4104, 4104, 4104),
        (4096, 4160, 4096, 4096, 4160, 4160),
        (8200, 8200, 8200, 8200, 8200, 8200)):
    (aw, a), (bw, b), (cw, c) = buffer(M, K, lda), buffer(K, N, ldb), buffer(M, N, ldc)
    ref = a.double() @ b.double()
    scale = ref.abs().max().item()
    fns = {"cuBLAS": lambda: torch.matmul(a, b)}
    for n, k in ks.items():
        fns["tile " + n] = (lambda k=k: k(cw, aw, bw, M, N, K, lda, ldb, ldc))
    grid = (bench.triton.cdiv(M, 128) * bench.triton.cdiv(N, 256),)
    for s in (3, 4):
        fns[f"triton s{s}"] = (lambda s=s: tr[grid](c, a, b, c, M, N, K, lda, 1, ldb, 1, ldc,
                                                    BM=128, BN=256, BK=64, GROUP=8, EPI=False,
                                                    num_warps=8, num_stages=s))
    c.fill_(float("nan"))
    best = check_then_time(fns, mm_check(c, ref, scale))
    for name, ms in best.items():
        print(f"| {M}x{N}x{K} | {lda}, {ldb}, {ldc} | {name} | {ms * 1e3:.1f} | "
              f"{2 * M * N * K / ms / 1e9:.0f} |", flush=True)
    del aw, bw, cw, a, b, c, ref, fns
