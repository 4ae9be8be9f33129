# Session 21: layernorm f16 at 1000/1008 x 4096 (BLOCK 4096, 8 warps): is the 10-vs-11 us spread
# a property of the buffers? Fresh x, w, b, y five times; Tile and Triton on each, 3 alternations,
# best median. python3 THIS BUILD_DIR
import os, sys, torch, triton, triton.language as tl
from triton.testing import do_bench
sys.path.insert(0, "bench")
from tile_ctypes import Libtile, ptr, i64, f64
D = sys.argv[1]
lib = Libtile(os.path.join(D, "libtile.so")); lib.init()
k = lib.kernel(os.path.join(D, "bench", "layernorm_f16_4096_w8.tlb"), "layernorm")

@triton.jit
def tr_layernorm(y, x, w, b, cols, stride, eps, BLOCK: tl.constexpr):
    base = tl.program_id(0) * stride
    c = tl.arange(0, BLOCK)
    keep = c < cols
    v = tl.load(x + base + c, mask=keep, other=0.0).to(tl.float32)
    mean = tl.sum(v, axis=0) / cols
    d = tl.where(keep, v - mean, 0.0)
    rstd = tl.rsqrt(tl.sum(d * d, axis=0) / cols + eps)
    wv = tl.load(w + c, mask=keep, other=0.0).to(tl.float32)
    bv = tl.load(b + c, mask=keep, other=0.0).to(tl.float32)
    tl.store(y + base + c, (d * rstd * wv + bv).to(y.dtype.element_ty), mask=keep)

keep = []
print("| rows | buffers | x address mod 2 MiB | Tile µs | Triton µs | Tile ÷ Triton |\n| --- | --- | --- | ---: | ---: | ---: |")
for rows in (1000, 1008):
    n = 4096
    for trial in range(5):
        x = torch.randn(rows, n, device="cuda", dtype=torch.float16)
        w_, b_ = torch.randn(n, device="cuda", dtype=torch.float16), torch.randn(n, device="cuda", dtype=torch.float16)
        y = torch.empty_like(x)
        keep.append((x, w_, b_, y, torch.empty(trial * 3 + 1, 1 << 20, device="cuda", dtype=torch.uint8)))
        ft = k.bind([ptr(y.data_ptr()), ptr(x.data_ptr()), ptr(w_.data_ptr()), ptr(b_.data_ptr()), i64(rows), i64(n), i64(n), f64(1e-5)],
                    torch.cuda.current_stream().cuda_stream)
        fr = lambda: tr_layernorm[(rows,)](y, x, w_, b_, n, n, 1e-5, BLOCK=4096, num_warps=8)
        ref = torch.nn.functional.layer_norm(x.double(), (n,), w_.double(), b_.double(), 1e-5)
        best = {}
        for r in range(3):
            for tag, f in (("tile", ft), ("triton", fr)) if r % 2 == 0 else (("triton", fr), ("tile", ft)):
                y.fill_(float("nan")); f(); torch.cuda.synchronize()
                assert (y.double() - ref).abs().max().item() < 2e-2, tag
                t = do_bench(f, warmup=25, rep=100, return_mode="median") * 1e3
                best[tag] = min(best.get(tag, t), t)
        print(f"| {rows} | {trial} | {x.data_ptr() % (2 << 20):#x} | {best['tile']:.2f} | {best['triton']:.2f} | {best['triton'] / best['tile']:.3f} |", flush=True)
