"""Session 31, call 3: realigned accesses with packed masks ("main")
against the compiler before session 31 ("old") and branch wip/shift-way
with packed masks ("sw": layernorm's rows rotated beside weights loaded
the shift way), 4096 rows, BLOCK the next power of two of the columns, 8
warps: bench/kernels/layernorm.tile f16 ("ln"), examples/layernorm.tile
f16 ("exln"), bench/kernels/softmax.tile f32 and bf16, examples/
cross_entropy.tile f32 (BLOCK 4096, scale 1) over 31997..32003 columns. Outputs
poisoned and checked against float64 first (abtime), then best of three
alternated do_bench medians; torch beside ln and softmax.

    TILE_LIBDIR=build-s31ab2 PYTHONPATH=python:bench python3 THIS build-s31ab2/ab"""
import sys

import torch

import tile
from abtime import check_then_time

d = sys.argv[1]
eps = 1e-5
rows = 4096
SYS = ("old", "main", "sw")
print("| kernel | cols | system | µs |\n| --- | ---: | --- | ---: |", flush=True)


def run(kind, n, fns, want, out, tol):
    def check(name, r):
        got = (r if isinstance(r, torch.Tensor) else out).double()
        err = (got - want).abs().max().item()
        out.fill_(float("nan"))
        return None if err < tol else f"max abs err {err:.2e}"
    out.fill_(float("nan"))
    for name, ms in check_then_time(fns, check).items():
        print(f"| {kind} | {n} | {name} | {ms * 1e3:.1f} |", flush=True)


for n in (4096, 4093, 4095, 4097, 4099):
    B = 4096 if n <= 4096 else 8192
    x = torch.randn(rows, n, device="cuda", dtype=torch.float16)
    res = torch.randn(rows, n, device="cuda", dtype=torch.float16)
    w = torch.randn(n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, device="cuda", dtype=torch.float16)
    y, h = torch.empty_like(x), torch.empty_like(x)
    mean, rstd = torch.empty(rows, device="cuda"), torch.empty(rows, device="cuda")
    ref = torch.nn.functional.layer_norm(x.double(), (n,), w.double(), b.double(), eps)
    fns = {"torch": lambda: torch.nn.functional.layer_norm(x, (n,), w, b, eps)}
    for s in SYS:
        k = tile.load(f"{d}/ln-{s}-b{B}.tlb").layernorm
        fns[s] = lambda k=k: k(y, x, w, b, rows, n, n, eps)
    run("ln f16", n, fns, ref, y, 3e-2)
    ref = torch.nn.functional.layer_norm(x.double() + res.double(), (n,), w.double(),
                                         b.double(), eps)
    fns = {}
    for s in SYS:
        k = tile.load(f"{d}/exln-{s}-b{B}.tlb").add_layernorm
        fns[s] = lambda k=k: k(y, h, mean, rstd, x, res, w, b, rows, n, n, eps)
    run("exln f16", n, fns, ref, y, 3e-2)
    del x, res, w, b, y, h, ref
    for dt, name, bl in ((torch.float32, "sm", B), (torch.bfloat16, "smbf", 4096)):
        if n > bl:
            continue
        x = torch.randn(rows, n, device="cuda", dtype=dt)
        y = torch.empty_like(x)
        ref = torch.softmax(x.double(), -1)
        fns = {"torch": lambda: torch.softmax(x, -1)}
        for s in SYS:
            k = tile.load(f"{d}/{name}-{s}-b{bl}.tlb").softmax
            fns[s] = lambda k=k: k(y, x, rows, n, n)
        run(f"softmax {str(dt)[6:]}", n, fns, ref, y, 1e-2 if dt == torch.bfloat16 else 1e-5)
        del x, y, ref
for n in (31997, 32000, 32003):
    x = torch.randn(rows, n, device="cuda")
    t = torch.randint(0, n, (rows,), device="cuda", dtype=torch.int32)
    loss, grad = torch.empty(rows, device="cuda"), torch.empty_like(x)
    xd = x.double()
    ref = torch.softmax(xd, 1).scatter_add(1, t.long()[:, None],
                                           -torch.ones(rows, 1, dtype=xd.dtype, device="cuda"))
    fns = {}
    for s in SYS:
        k = tile.load(f"{d}/xent-{s}.tlb").cross_entropy
        fns[s] = lambda k=k: k(loss, grad, x, t, rows, n, n, 1.0)
    run("xent f32", n, fns, ref, grad, 1e-6)
    del x, grad, ref
