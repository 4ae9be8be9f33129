"""Session 46: Nsight Compute over examples/attention.tile (build-s46/ab,
the default counted slots, 128x128 blocks, 2 stages) and cuDNN's SDPA at
B=4, H=32, S=4096, f16, D = 64 and 128, not causal: each system run
three times (the first warms cuDNN's plan), so that `ncu -k` catches the
later launches. Run under ncu by -session46-gpu.sh ncu."""
import os
import sys

import torch

sys.path[:0] = ["python", "bench"]
import tile  # noqa: E402
from abtime import sdpa_case  # noqa: E402

d = sys.argv[1] if len(sys.argv) > 1 else "build-s46/ab"
B, H, S = 4, 32, 4096
for D in (64, 128):
    q, k, v, o, ref, cudnn = sdpa_case(B, H, S, D, False)
    kt = tile.load(os.path.join(d, f"att-last-D{D}-128x128-s2.tlb")).attention
    for _ in range(3):
        kt(o, q, k, v, B * H, S, S * D, D, D ** -0.5)
    torch.cuda.synchronize()
    err = (o.double() - ref).abs().max().item()
    for _ in range(3):
        r = cudnn()
    torch.cuda.synchronize()
    err2 = (r.double() - ref).abs().max().item()
    print(f"D={D}: Tile max error {err:.2e}, cuDNN {err2:.2e}", flush=True)
