# layernorm f16 (bench/kernels/layernorm.tile): bundles of two compilers, one libtile, Triton beside
import os, sys, torch, triton, triton.language as tl
from triton.testing import do_bench
sys.path.insert(0, "bench")
from tile_ctypes import Libtile, ptr, i64, f64
import configs
LIB, D = sys.argv[1], sys.argv[2]
lib = Libtile(LIB); lib.init()

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

def st():
    return torch.cuda.current_stream().cuda_stream
rows_out = []
for rows, n, wdt in [(4096, 4093, None), (4096, 4095, None), (4096, 4096, None), (4096, 4097, None),
                     (4096, 4099, None), (4096, 4104, None), (1000, 4096, None), 
                     (4096, 1023, None), (4096, 8191, None), (4096, 4093, 4), (4096, 4093, 16)]:
    eps = 1e-5
    x = torch.randn(rows, n, device="cuda", dtype=torch.float16)
    w_ = torch.randn(n, device="cuda", dtype=torch.float16); b_ = torch.randn(n, device="cuda", dtype=torch.float16)
    y = torch.empty_like(x)
    ref = torch.nn.functional.layer_norm(x.double(), (n,), w_.double(), b_.double(), eps)
    block = configs.next_pow2(n)
    w = wdt or configs.layernorm_warps(block)
    fns = {}
    for tag in ("old", "new"):
        k = lib.kernel(os.path.join(D, tag, f"layernorm_f16_{block}_w{w}.tlb"), "layernorm")
        fns[tag] = k.bind([ptr(y.data_ptr()), ptr(x.data_ptr()), ptr(w_.data_ptr()), ptr(b_.data_ptr()),
                           i64(rows), i64(n), i64(x.stride(0)), f64(eps)], st())
    fns["triton"] = lambda: tr_layernorm[(rows,)](y, x, w_, b_, n, x.stride(0), eps, BLOCK=block, num_warps=w)
    res = {}
    for rep in range(2):
        for tag, f in fns.items():
            y.fill_(float("nan")); f(); torch.cuda.synchronize()
            err = ((y.double() - ref).norm() / ref.norm()).item()
            ok = err <= 5e-3
            t = do_bench(f, warmup=25, rep=100, return_mode="median") * 1e3
            res.setdefault(tag, []).append(f"{t:.1f}{'' if ok else ' BAD %.1e' % err}")
    line = f"| {rows}x{n} | {block} w{w} | " + " | ".join("/".join(res[t]) for t in ("old", "new", "triton")) + " |"
    rows_out.append(line); print(line, flush=True)
print("| shape | BLOCK, warps | before µs (2 alternations) | after | Triton |\n| --- | --- | ---: | ---: | ---: |")
print("\n".join(rows_out))
