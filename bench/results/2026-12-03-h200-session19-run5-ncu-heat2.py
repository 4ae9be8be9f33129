# One launch each (after warm-up) of Tile's heat2 16x32 w4 and Triton's at n = 8190, then 8192, for Nsight Compute.
import sys, torch, triton
sys.path.insert(0, "bench"); sys.path.insert(0, "build-exp/st")
from tile_ctypes import Libtile, i64, ptr, f64
lib = Libtile("build-exp/hn/libtile.so"); lib.init()
import importlib.util
spec = importlib.util.spec_from_file_location("us", "bench/user_stencil.py"); us = importlib.util.module_from_spec(spec); spec.loader.exec_module(us)
k = lib.kernel("build-exp/hn/user_heat2_16x32_w4.tlb", "heat2")
s = torch.cuda.current_stream().cuda_stream
for n in (8190, 8192):
    u = torch.randn(n, n, device="cuda"); out = torch.empty_like(u); a = 0.1
    f = k.bind([ptr(out.data_ptr()), ptr(u.data_ptr()), i64(n), i64(n), i64(n), f64(a)], s)
    g = lambda: us.heat2[(triton.cdiv(n, 16), triton.cdiv(n, 32))](out, u, n, n, n, a, BM=16, BN=32, num_warps=4)
    for _ in range(3): f(); g()
    torch.cuda.synchronize()
print("done")
