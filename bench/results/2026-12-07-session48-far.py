"""Session 48: realigned rows' far way (the group holding the rotation's
wrap) as two accesses an element under complementary predicates, from
two base registers (lower/memory.c lw_far) — `new` — against the
compiler before it — `old` — on the generic variants it changed:
examples/cross_entropy.tile (f32 BLOCK 4096 16 warps: 58 -> 32
registers; f16 BLOCK 4096 16 warps: 64 -> 40; f16 BLOCK 2048 8 warps:
56 -> 40) over 4096 rows of 32003 columns (odd: the generic, rotated
variant) and 32000 (aligned), and examples/softmax.tile f32 BLOCK 4096
8 warps at 4096 x 4093 and 4096. Outputs poisoned and checked against
float64 first, then best of three alternated do_bench medians (abtime.py), µs.

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 -session48-far.py DIR
"""
import os
import sys

import torch

import tile
from abtime import check_then_time

d = sys.argv[1]
rows_out = []
torch.manual_seed(0)


def xent_case(t, block, warps, cols):
    rows, scale = 4096, 1.0 / 4096
    dt = {"f32": torch.float32, "f16": torch.float16}[t]
    logits = torch.randn(rows, cols, device="cuda", dtype=dt) * 3
    target = torch.randint(0, cols, (rows,), device="cuda", dtype=torch.int32)
    loss = torch.full((rows,), float("nan"), device="cuda")
    grad = torch.full_like(logits, float("nan"))
    ld = logits.double()
    lse = torch.logsumexp(ld, 1)
    ref_loss = lse - ld.gather(1, target.long()[:, None])[:, 0]
    ref_grad = (torch.softmax(ld, 1) - torch.nn.functional.one_hot(target.long(), cols)) * scale
    fns = {}
    for v in ("old", "new"):
        k = tile.load(os.path.join(d, f"{v}-xent-{t}-{block}-w{warps}.tlb")).cross_entropy
        fns[v] = (lambda k=k: k(loss, grad, logits, target, rows, cols, cols, scale))

    def check(name, r):
        e1 = (loss.double() - ref_loss).abs().max().item()
        e2 = (grad.double() - ref_grad).abs().max().item()
        loss.fill_(float("nan"))
        grad.fill_(float("nan"))
        return None if e1 < 1e-2 and e2 < 1e-3 else f"err loss {e1:.2e} grad {e2:.2e}"
    best = check_then_time(fns, check)
    rows_out.append((f"cross_entropy {t} 4096x{cols} (BLOCK {block}, {warps} warps)", best))
    print({k: round(v * 1e3, 1) for k, v in best.items()}, rows_out[-1][0], flush=True)


def softmax_case(cols):
    rows = 4096
    x = torch.randn(rows, cols, device="cuda")
    out = torch.full_like(x, float("nan"))
    ref = torch.softmax(x.double(), 1)
    fns = {}
    for v in ("old", "new"):
        k = tile.load(os.path.join(d, f"{v}-softmax-4096-w8.tlb")).softmax
        fns[v] = (lambda k=k: k(out, x, rows, cols, cols))

    def check(name, r):
        e = (out.double() - ref).abs().max().item()
        out.fill_(float("nan"))
        return None if e < 1e-5 else f"err {e:.2e}"
    best = check_then_time(fns, check)
    rows_out.append((f"softmax f32 4096x{cols} (BLOCK 4096, 8 warps)", best))
    print({k: round(v * 1e3, 1) for k, v in best.items()}, rows_out[-1][0], flush=True)


print(torch.cuda.get_device_name(), flush=True)
for t, block, warps in (("f32", 4096, 16), ("f16", 4096, 16), ("f16", 2048, 8)):
    for cols in (32003, 32000):
        xent_case(t, block, warps, cols)
for cols in (4093, 4095, 4096):
    softmax_case(cols)
print("\n| case | old µs | new µs | old ÷ new |\n| --- | ---: | ---: | ---: |")
for case, best in rows_out:
    us = {k: v * 1e3 for k, v in best.items()}
    print(f"| {case} | {us.get('old', float('nan')):.1f} | {us.get('new', float('nan')):.1f} | "
          f"{us.get('old', float('nan')) / us.get('new', float('nan')):.3f} |", flush=True)
