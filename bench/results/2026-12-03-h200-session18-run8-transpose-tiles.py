# Transpose f32 n x n, each of bench's four tile configurations, Tile
# (this session's bundles) and Triton's same kernel, CUDA-event medians.
import sys, torch, triton, triton.language as tl
sys.path.insert(0, "bench")
from tile_ctypes import Libtile, ptr, i64
lib = Libtile("build-exp/tr4/libtile.so"); lib.init()
@triton.jit
def tr(out, x, rows, cols, xs, os_, BM: tl.constexpr, BN: tl.constexpr):
    r = (tl.program_id(0) * BM + tl.arange(0, BM))[:, None]
    c = (tl.program_id(1) * BN + tl.arange(0, BN))[None, :]
    keep = (r < rows) & (c < cols)
    v = tl.load(x + r * xs + c, mask=keep)
    tl.store(out + c * os_ + r, v, mask=keep)
s = torch.cuda.current_stream().cuda_stream
cfgs = ((64, 64, 4), (64, 64, 8), (32, 32, 4), (32, 64, 4))
print("n | " + " | ".join(f"tile {a}x{b} w{w} | triton {a}x{b} w{w}" for a, b, w in cfgs) + " | best tile | best triton | tile÷triton (speed)")
for n in (8192, 8200, 8189, 8193, 4100):
    x = torch.randn(n, n, device="cuda"); out = torch.empty_like(x)
    res = []
    for bm, bn, w in cfgs:
        k = lib.kernel(f"build-exp/tr4/bench/transpose_{bm}x{bn}_w{w}.tlb", "transpose")
        g = (triton.cdiv(n, bm), triton.cdiv(n, bn))
        for f in (lambda: k([ptr(out.data_ptr()), ptr(x.data_ptr()), i64(n), i64(n), i64(n), i64(n)], s),
                  lambda: tr[g](out, x, n, n, n, n, BM=bm, BN=bn, num_warps=w)):
            out.fill_(float("nan")); f(); torch.cuda.synchronize()
            assert torch.equal(out, x.t()), (n, bm, bn, w)
            res.append(triton.testing.do_bench(f, warmup=25, rep=100) * 1000)
    bt, br = min(res[0::2]), min(res[1::2])
    print(f"{n} | " + " | ".join(f"{t:.1f}" for t in res) + f" | {bt:.1f} | {br:.1f} | {br / bt:.3f}", flush=True)
