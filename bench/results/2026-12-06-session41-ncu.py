"""Session 41, call 4: one launch each of examples/matmul.tile f16
128x256x64 w8 at 4096^3, 3 stages, as written ("s3") and --persistent
("p3"), and p3 with its scalars hoisted ("p3h"), under Nsight Compute: where the persistent kernel's 10-17%
goes (session 41's calls 2 and 3).

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
for v in ("s3", "p3", "p3h"):
    k = tile.load(os.path.join(d, v + ".tlb")).matmul
    k(c, a, b, M, N, K, K, N, N)
    torch.cuda.synchronize()
    print(v, "launched", flush=True)
