"""Session 36, call 2: every configuration of examples/torch/mlp.tile's
matmul_strided (f32, tf32 on wgmma) at the training step's backward
products (size large: M = 4096, D = 1024, H = 4096, C = 8192), beside
cuBLAS (allow_tf32) and the autotuner's own choice: the input gradients
dX = dY @ W^T (NT: B K-major) and the weight gradients dW = X^T @ dY
(TN: A M-major, B N-major), and NN for reference. Each configuration is
checked against float64 (poisoned output) and timed once (do_bench
median); the three fastest, the autotuned call and cuBLAS are then
checked and timed again as best of three alternated medians.

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS MLP_TLB [f32|bf16]
(bf16: the bundle of mlp.tile -DT=bf16, outputs within 1e-2 of the
largest magnitude, as bench.py's bf16 bound; call 5 of session 36)"""
import sys

import torch
import tile
from triton.testing import do_bench
from abtime import check_then_time, mm_check

torch.backends.cuda.matmul.allow_tf32 = True
mm = tile.load(sys.argv[1]).matmul_strided
dt = {"f32": torch.float32, "bf16": torch.bfloat16}[sys.argv[2] if len(sys.argv) > 2 else "f32"]
tol = 5e-3 if dt == torch.float32 else 1e-2
cfgs = [{k: int(v) for k, v in c.items() if v.lstrip("-").isdigit()} for c in mm.configs]


def name(c):
    return f"{c['BM']}x{c['BN']}x{c['BK']} w{c['warps']} s{c['stages']}"


def operands(layout, M, N, K):
    a = torch.randn(M, K, device="cuda", dtype=dt) if layout[0] == "N" else \
        torch.randn(K, M, device="cuda", dtype=dt).t()
    b = torch.randn(K, N, device="cuda", dtype=dt) if layout[1] == "N" else \
        torch.randn(N, K, device="cuda", dtype=dt).t()
    return a, b


print("| layout | M x N x K | cuBLAS | autotuned | best | 2nd | 3rd | best / cuBLAS |\n"
      "| --- | --- | ---: | ---: | --- | --- | --- | ---: |", flush=True)
for layout, M, N, K in (("NT", 4096, 1024, 8192), ("NT", 4096, 4096, 1024), ("NT", 4096, 1024, 4096),
                        ("TN", 1024, 8192, 4096), ("TN", 4096, 1024, 4096), ("TN", 1024, 4096, 4096),
                        ("NN", 4096, 1024, 4096)):
    a, b = operands(layout, M, N, K)
    ab = a if layout[0] == "N" else a.t()     # Tile takes the buffers whole
    bb = b if layout[1] == "N" else b.t()
    c = torch.empty(M, N, device="cuda", dtype=dt)
    ref = a.double() @ b.double()
    scale = ref.abs().max().item()
    check = mm_check(c, ref, scale, tol)
    args = (c, ab, bb, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1))
    once = {}
    for cf in cfgs:
        c.fill_(float("nan"))
        mm(*args, **cf)
        torch.cuda.synchronize()
        msg = check(name(cf), None)
        if msg:
            print(f"{layout} {M}x{N}x{K} {name(cf)}: WRONG, {msg}", flush=True)
            continue
        once[name(cf)] = (do_bench(lambda cf=cf: mm(*args, **cf), warmup=5, rep=30,
                                   return_mode="median"), cf)
    top = sorted(once.items(), key=lambda kv: kv[1][0])[:3]
    fns = {"cuBLAS": lambda: torch.matmul(a, b), "autotuned": lambda: mm(*args)}
    for n, (_, cf) in top:
        fns[n] = lambda cf=cf: mm(*args, **cf)
    c.fill_(float("nan"))
    best = check_then_time(fns, check)
    tops = [f"{n} {best.get(n, float('nan')) * 1e3:.1f}" for n, _ in top]
    bt = min(best.get(n, float("inf")) for n, _ in top)
    print(f"| {layout} | {M}x{N}x{K} | {best['cuBLAS'] * 1e3:.1f} | "
          f"{best.get('autotuned', float('nan')) * 1e3:.1f} | " + " | ".join(tops) +
          f" | {best['cuBLAS'] / bt:.2f} |", flush=True)
    del a, b, c, ref, fns
