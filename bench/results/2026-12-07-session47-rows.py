"""Session 47: issue 13's remaining row-wise cliffs under Nsight Compute —
transpose f32 (examples/transpose.tile 64x64, 4 warps) at 8191^2 and
8192^2, layernorm f16 (bench/kernels/layernorm.tile, 8 warps) at 4096 x
4093 / 4096 (BLOCK 4096) and 4104 (BLOCK 8192): each Tile kernel
checked against float64 once, then launched twice (ncu profiles the
second, --launch-skip). What the bytes, sectors, occupancy and stalls
say: whether the 0.80 (transpose) and 0.85 / 0.88 (layernorm) of the
aligned neighbour are the memory system's (more DRAM bytes or sectors)
or the kernel's.

    TILE_LIBDIR=DIR PYTHONPATH=python python3 -session47-rows.py DIR/rows
"""
import os
import sys

import torch

import tile

d = sys.argv[1]
torch.manual_seed(0)


def run(name, fn, check):
    fn()
    torch.cuda.synchronize()
    err = check()
    print(f"{name}: max error {err:.2e}", flush=True)
    fn()
    torch.cuda.synchronize()


tr = tile.load(os.path.join(d, "transpose-64x64-w4.tlb")).transpose
for n in (8191, 8192):
    x = torch.randn(n, n, device="cuda")
    out = torch.full((n, n), float("nan"), device="cuda")
    run(f"transpose {n}", lambda: tr(out, x, n, n, n, n),
        lambda: (out - x.t()).abs().max().item())
for cols, block in ((4093, 4096), (4096, 4096), (4104, 8192)):
    ln = tile.load(os.path.join(d, f"layernorm-{block}-w8.tlb")).layernorm
    rows = 4096
    x = torch.randn(rows, cols, device="cuda", dtype=torch.float16)
    w = torch.randn(cols, device="cuda", dtype=torch.float16)
    b = torch.randn(cols, device="cuda", dtype=torch.float16)
    y = torch.full_like(x, float("nan"))
    ref = torch.nn.functional.layer_norm(x.double(), (cols,), w.double(), b.double(), 1e-5)
    run(f"layernorm {rows}x{cols}", lambda: ln(y, x, w, b, rows, cols, cols, 1e-5),
        lambda: (y.double() - ref).abs().max().item())
