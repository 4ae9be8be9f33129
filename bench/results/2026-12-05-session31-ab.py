"""Session 31: layernorm f16 over rows of odd length, the rows rotated to
alignment beside weights and bias loaded the shift way ("new"), against
the compiler before ("old": such components not rotated) and one with only
the lowering's one-phi-of-words change ("wp"), beside torch's layer_norm.
bench/kernels/layernorm.tile (8 warps; "ln") and examples/layernorm.tile
(residual add, three passes; "exln"), BLOCK the next power of two of the
columns, 4096 rows. Outputs poisoned and checked against float64 first,
then best of three alternated do_bench medians.

    TILE_LIBDIR=build-s31ab PYTHONPATH=python:bench python3 THIS build-s31ab/ab"""
import sys

import torch

import tile
from abtime import check_then_time

d = sys.argv[1]
eps = 1e-5
print("| kernel | cols | system | µs | GB/s |\n| --- | ---: | --- | ---: | ---: |", flush=True)
for n in (4096, 4093, 4095, 4097, 4099):
    rows = 4096
    B = 4096 if n <= 4096 else 8192
    x = torch.randn(rows, n, device="cuda", dtype=torch.float16)
    res = torch.randn(rows, n, device="cuda", dtype=torch.float16)
    w = torch.randn(n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, device="cuda", dtype=torch.float16)
    y = torch.empty_like(x)
    h = torch.empty_like(x)
    mean = torch.empty(rows, device="cuda")
    rstd = torch.empty(rows, device="cuda")
    ref = torch.nn.functional.layer_norm(x.double(), (n,), w.double(), b.double(), eps)
    href = x.double() + res.double()
    ref2 = torch.nn.functional.layer_norm(href, (n,), w.double(), b.double(), eps)
    for kind in ("ln", "exln"):
        fns = {}
        if kind == "ln":
            fns["torch"] = lambda: torch.nn.functional.layer_norm(x, (n,), w, b, eps)
        for sys_ in ("old", "wp", "new"):
            if kind == "ln":
                k = tile.load(f"{d}/ln-{sys_}-b{B}.tlb").layernorm
                fns[sys_] = lambda k=k: k(y, x, w, b, rows, n, n, eps)
            else:
                k = tile.load(f"{d}/exln-{sys_}-b{B}.tlb").add_layernorm
                fns[sys_] = lambda k=k: k(y, h, mean, rstd, x, res, w, b, rows, n, n, eps)
        want = ref if kind == "ln" else ref2

        def check(name, r):
            got = (r if isinstance(r, torch.Tensor) else y).double()
            err = (got - want).abs().max().item()
            y.fill_(float("nan"))
            return None if err < 3e-2 else f"max abs err {err:.2e}"
        y.fill_(float("nan"))
        best = check_then_time(fns, check)
        nbytes = (2 if kind == "ln" else 5) * rows * n * 2
        for name, ms in best.items():
            print(f"| {kind} | {n} | {name} | {ms * 1e3:.1f} | {nbytes / ms / 1e6:.0f} |", flush=True)
    del x, res, w, b, y, h, ref, ref2, href
