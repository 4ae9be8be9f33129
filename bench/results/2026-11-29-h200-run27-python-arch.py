# tile.compile with no arch on the H200: sm_90a (wgmma) by default.
import os, time, torch, tile
from tile import gpu
print("default arch:", gpu._device_arch())
for arch in (None, "sm_90"):
    m = tile.compile("examples/matmul.tile", defines={"BM": 128, "BN": 256, "BK": 64}, arch=arch)
    n = 4096
    a = torch.rand(n, n, device="cuda", dtype=torch.float16) - 0.5
    b = torch.rand(n, n, device="cuda", dtype=torch.float16) - 0.5
    c = torch.full((n, n), float("nan"), device="cuda", dtype=torch.float16)
    m.matmul(c, a, b, n, n, n, n, n, n); torch.cuda.synchronize()
    ref = a.float() @ b.float()
    err = ((c.float() - ref).abs().max() / ref.abs().max()).item()
    ts = []
    for _ in range(20):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record(); m.matmul(c, a, b, n, n, n, n, n, n); e1.record(); e1.synchronize()
        ts.append(e0.elapsed_time(e1))
    ts.sort()
    print(f"arch={arch}: maxrel {err:.2e}, median {ts[10]*1000:.1f} us ({2*n**3/ts[10]/1e9:.0f} TFLOP/s)")
