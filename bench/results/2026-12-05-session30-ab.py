"""Session 30 (prepared in session 29): attention with the product issued
one iteration ahead (tilec --early-products: "early") against the
default loops ("main", 2 and 3 stages), beside cuDNN's SDPA, D = 64 and
128, causal or not, [B*H, S, D] f16 with S = 4096; then matmul f16, the
default code and persistent programs (tilec --persistent: "pers"),
beside cuBLAS at 4096^3, 8192^3, 4104^3. Outputs poisoned and checked
against float64 first (bench/abtime.py), then best of three alternated
do_bench medians.

Bundles in BUNDLE_DIR (-run1-prepare.sh builds them; names say the
tile):
  att-{main,early}-D{64,128}[-causal]-BMxBN-wW-sS.tlb
  mm-{main,pers}-BMxBNxBK-wW-sS.tlb   examples/matmul.tile
                                       (pers: tilec --persistent)

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS BUNDLE_DIR"""
import glob
import os
import sys

import torch

import tile
from abtime import check_then_time, mm_case, sdpa_case

d = sys.argv[1]
rows = []
print("| shape | system | µs | TFLOP/s |\n| --- | --- | ---: | ---: |", flush=True)


def emit(shape, name, us, tflops):
    """A row, printed as soon as it is timed (a run cut short keeps it)."""
    rows.append((shape, name, us, tflops))
    print(f"| {shape} | {name} | {us:.1f} | {tflops:.0f} |", flush=True)

B, H, S = 4, 32, 4096
for D in (64, 128):
    for causal in (False, True):
        q, k, v, o, ref, cudnn = sdpa_case(B, H, S, D, causal)
        fns = {"cuDNN SDPA": cudnn}
        tag = f"-D{D}{'-causal' if causal else ''}-"
        for p in sorted(glob.glob(os.path.join(d, "att-*" + tag + "[0-9]*.tlb"))):
            kt = tile.load(p).attention
            fns[os.path.basename(p)[:-4]] = (
                lambda kt=kt: kt(o, q, k, v, B * H, S, S * D, D, D ** -0.5))

        def check(name, r):
            got = (r if isinstance(r, torch.Tensor) else o).double()
            err = (got - ref).abs().max().item()
            o.fill_(float("nan"))
            return None if err < 2e-2 else f"max abs err {err:.2e}"
        o.fill_(float("nan"))
        best = check_then_time(fns, check)
        flops = 4 * B * H * S * S * D // (2 if causal else 1)
        for name, ms in best.items():
            emit(f"attention D{D}{' causal' if causal else ''}", name, ms * 1e3,
                 flops / ms / 1e9)
        del q, k, v, o, ref

for M, N, K in ((4096, 4096, 4096), (8192, 8192, 8192), (4104, 4104, 4104)):
    a, b, c, ref, scale, cublas = mm_case(M, N, K)
    fns = {"cuBLAS": cublas}
    for p in sorted(glob.glob(os.path.join(d, "mm-*.tlb"))):
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
        emit(f"{M}x{N}x{K}", name, ms * 1e3, 2 * M * N * K / ms / 1e9)
    del a, b, c, ref
