"""Session 38, call 5: one launch each of examples/matmul.tile f16
128x128x64 w8 s4 at 4096^3 with released slots ("rel") and with the
barriers ("cta"), under Nsight Compute (WarpStateStats, SchedulerStats):
where the released loop's 7% goes.

    ncu ... python3 THIS BUNDLE_DIR"""
import os
import sys

import torch
import tile

d = sys.argv[1]
M = N = K = 4096
a = torch.randn(M, K, device="cuda", dtype=torch.float16)
b = torch.randn(K, N, device="cuda", dtype=torch.float16)
c = torch.empty(M, N, device="cuda", dtype=torch.float16)
for v in ("rel", "cta"):
    k = tile.load(os.path.join(d, f"mm-{v}-f16-128x128x64-w8-s4.tlb")).matmul
    k(c, a, b, M, N, K, K, N, N)
    torch.cuda.synchronize()
    print(v, "launched", flush=True)
