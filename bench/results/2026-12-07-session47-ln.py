"""Session 47: rows beside weights of another offset, realigned by
splitting the weights' loads (plan/realign.c split_load) — `new`; `nat`:
the weights read unrotated instead (-session47-nat.patch) — against the
element-by-element generic variant before it — `old` — on the GPU:
bench/kernels/layernorm.tile f16 (BLOCK 4096 / 8192, 8 warps) at 4096
rows of 4093 ... 4104 columns, and examples/layernorm.tile's
add_layernorm f16 (BLOCK 1024, 4 and 8 warps) at 4096 x 4093 and 4096,
beside Triton's layernorm at the same block and torch; and (session 48)
BLOCK 8192 over 16 warps at 4097, 4104 and 8192 columns (the `old`
bundle only: the 4104-column point's 63 registers are BLOCK 8192's 32
f32 a thread over 8 warps), Triton at 16 warps beside. Every output
poisoned and checked against float64 first, then best of three
alternated do_bench medians (abtime.py), µs; a table last.

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 -session47-ln.py DIR/ln
"""
import glob
import os
import sys

import torch
import triton

import bench
import tile
from abtime import check_then_time

d = sys.argv[1]
# the compilers built: old, new and any other prefix of d's bundles
VARIANTS = sorted({os.path.basename(p).split("-")[0] for p in glob.glob(os.path.join(d, "*.tlb"))},
                  key=lambda v: (v != "old", v != "new", v))
bench.setup_torch()
rows_out = []


def ln_case(cols, warps=8):
    rows, eps = 4096, 1e-5
    block = 4096 if cols <= 4096 else 8192
    x = torch.randn(rows, cols, device="cuda", dtype=torch.float16)
    w = torch.randn(cols, device="cuda", dtype=torch.float16)
    b = torch.randn(cols, device="cuda", dtype=torch.float16)
    y = torch.full_like(x, float("nan"))
    ref = torch.nn.functional.layer_norm(x.double(), (cols,), w.double(), b.double(), eps)
    fns = {"torch": lambda: torch.nn.functional.layer_norm(x, (cols,), w, b, eps),
           "triton": lambda: bench.tr_layernorm[(rows,)](y, x, w, b, cols, cols, eps,
                                                         BLOCK=block, num_warps=warps)}
    for v in VARIANTS:
        path = os.path.join(d, f"{v}-layernorm-{block}-w{warps}.tlb")
        if not os.path.exists(path):
            continue
        k = tile.load(path).layernorm
        fns[v] = (lambda k=k: k(y, x, w, b, rows, cols, cols, eps))

    def check(name, r):
        got = (r if isinstance(r, torch.Tensor) else y).double()
        err = (got - ref).abs().max().item()
        y.fill_(float("nan"))
        return None if err < 2e-2 else f"err {err:.2e}"
    best = check_then_time(fns, check)
    rows_out.append((f"layernorm f16 4096x{cols} (BLOCK {block}, {warps} warps)", best))
    print({k: round(v * 1e3, 1) for k, v in best.items()}, rows_out[-1][0], flush=True)


def add_ln_case(cols, block, w):
    rows, eps = 4096, 1e-5
    x, res = (torch.randn(rows, cols, device="cuda", dtype=torch.float16) for _ in range(2))
    wt = torch.randn(cols, device="cuda", dtype=torch.float16)
    b = torch.randn(cols, device="cuda", dtype=torch.float16)
    out, h = (torch.full_like(x, float("nan")) for _ in range(2))
    mean, rstd = (torch.empty(rows, device="cuda") for _ in range(2))
    hd = x.double() + res.double()
    ref = torch.nn.functional.layer_norm(hd, (cols,), wt.double(), b.double(), eps)
    fns = {}
    for v in VARIANTS:
        k = tile.load(os.path.join(d, f"{v}-addln-{block}-w{w}.tlb")).add_layernorm
        fns[v] = (lambda k=k: k(out, h, mean, rstd, x, res, wt, b, rows, cols, cols, eps))

    def check(name, r):
        err = max((out.double() - ref).abs().max().item(), (h.double() - hd).abs().max().item())
        out.fill_(float("nan"))
        h.fill_(float("nan"))
        return None if err < 2e-2 else f"err {err:.2e}"
    best = check_then_time(fns, check)
    rows_out.append((f"add_layernorm f16 4096x{cols} (BLOCK {block}, {w} warps)", best))
    print({k: round(v * 1e3, 1) for k, v in best.items()}, rows_out[-1][0], flush=True)


print(torch.cuda.get_device_name(), flush=True)
for cols in (4093, 4095, 4096, 4097, 4099, 4104):
    ln_case(cols)
for cols in (4097, 4104, 8192):   # BLOCK 8192 over 16 warps: 16 f32 a thread
    ln_case(cols, 16)
for cols in (4093, 4096):
    for w in (4, 8):
        add_ln_case(cols, 1024, w)
others = [v for v in VARIANTS if v != "old"]


def row(case, best):
    us = {k: v * 1e3 for k, v in best.items()}
    nan = float("nan")
    cells = [f"{us.get(v, nan):.1f} | {us.get('old', nan) / us.get(v, nan):.3f}" for v in others]
    return (f"| {case} | {us.get('old', nan):.1f} | " + " | ".join(cells) +
            f" | {us.get('triton', nan):.1f} | {us.get('torch', nan):.1f} |")


print("\n| case | old µs | " + " | ".join(f"{v} µs | old ÷ {v}" for v in others) +
      " | Triton µs | torch µs |\n| --- | ---: |" + " ---: | ---: |" * len(others) + " ---: | ---: |")
for case, best in rows_out:
    print(row(case, best), flush=True)
