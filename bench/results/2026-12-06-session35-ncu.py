"""Session 35: one launch of each system under Nsight Compute, at M = K =
4096 and N = 4096 or 4104 (B's and C's rows 8192 or 8208 bytes apart):
examples/matmul.tile 128 x 256 x 64 w8 with TMA rings (tma) and cp.async
rings (notma), and cuBLAS. Run by -session35-gpu.sh as
    ncu --clock-control none --metrics ... python3 THIS BUNDLE_DIR
(TILE_LIBDIR, PYTHONPATH=python:bench). Outputs are not checked here:
-session35-stride.py checks the same bundles first."""
import os
import sys

import torch
import tile

d = sys.argv[1]
ks = {n: tile.load(os.path.join(d, n + ".tlb")).matmul for n in ("tma", "notma")}
for N in (4096, 4104):
    M = K = 4096
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    for name, k in ks.items():
        k(c, a, b, M, N, K, K, N, N)
    torch.matmul(a, b)
    torch.cuda.synchronize()
    print(f"N={N}: launched tma, notma, cuBLAS", flush=True)
