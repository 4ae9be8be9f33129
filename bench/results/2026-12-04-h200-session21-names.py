# Does ptxas schedule differently by kernel name (issue 14, triton PR #7298)?
# ptxas 13.0 here: a kernel whose name contains "cutlass" gets different SASS
# for the wgmma matmuls (same instructions, other order and registers); the
# attention kernels' SASS is identical. This times the same bundles built
# with the kernel named as in the source and renamed cutlass_<name>, one
# process, alternating, every output poisoned and checked first.
# Also: Triton's layernorm (f16, BLOCK 4096, 8 warps) registers and PTX beside
# Tile's bundle, at 1000 and 4096 rows.
import math, os, sys, torch, triton, triton.language as tl
from triton.testing import do_bench
sys.path.insert(0, "bench")
from tile_ctypes import Libtile, ptr, i64, f64
D = sys.argv[1]; OUT = os.environ.get("OUT", "/tmp")
lib = Libtile(os.path.join(D, "libtile.so")); lib.init()
st = lambda: torch.cuda.current_stream().cuda_stream
rows = []

def ab(label, bundle, kern, args, out, ref, tol, flops):
    fns = {}
    for tag, name in (("orig", kern), ("cutlass", "cutlass_" + kern)):
        k = lib.kernel(os.path.join(D, tag, bundle + ".tlb"), name)
        fns[tag] = k.bind(args, st())
    res = {"orig": [], "cutlass": []}
    for rep in range(3):
        for tag, f in fns.items():
            out.fill_(float("nan")); f(); torch.cuda.synchronize()
            err = ((out.double() - ref).abs().max() / ref.abs().max()).item()
            ok = err < tol
            t = do_bench(f, warmup=25, rep=200, return_mode="median") * 1e3
            res[tag].append(t if ok else float("nan"))
    o, c = min(res["orig"]), min(res["cutlass"])
    line = (f"| {label} | {' / '.join(f'{t:.1f}' for t in res['orig'])} | "
            f"{' / '.join(f'{t:.1f}' for t in res['cutlass'])} | {flops / o / 1e6:.0f} | "
            f"{flops / c / 1e6:.0f} | {o / c:.3f} |")
    rows.append(line); print(line, flush=True)

for n in (4096, 8192):
    a = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
    b = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
    out = torch.empty(n, n, device="cuda", dtype=torch.float16)
    ref = a.double() @ b.double()
    ab(f"matmul f16 {n}^3 128x256x64 w8", "matmul_f16_128x256x64_w8", "matmul",
       [ptr(out.data_ptr()), ptr(a.data_ptr()), ptr(b.data_ptr())] + [i64(n)] * 6, out, ref, 1e-2, 2 * n ** 3)
    bias = torch.rand(n, device="cuda", dtype=torch.float16) * 2 - 1
    ref = torch.relu(ref + bias.double())
    ab(f"linear_relu f16 {n}^3 128x256x64 w8", "linear_relu_128x256x64_w8", "linear_relu",
       [ptr(out.data_ptr()), ptr(a.data_ptr()), ptr(b.data_ptr()), ptr(bias.data_ptr())] + [i64(n)] * 6,
       out, ref, 1e-2, 2 * n ** 3)
    f8 = torch.float8_e4m3fn
    a8 = (torch.rand(n, n, device="cuda") * 2 - 1).to(f8); b8 = (torch.rand(n, n, device="cuda") * 2 - 1).to(f8)
    o16 = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    ref = a8.double() @ b8.double().t()
    ab(f"e4m3 {n}^3 128x256x128 w8 s4", "mm_f8_128x256x128_w8_s4", "matmul_f8",
       [ptr(o16.data_ptr()), ptr(a8.data_ptr()), ptr(b8.data_ptr())] + [i64(n)] * 6 + [f64(1.0)],
       o16, ref, 1e-2, 2 * n ** 3)
    del a, b, out, ref, a8, b8, o16

B, H, S = 4, 32, 4096
for d in (64, 128):
    for causal in (False, True):
        q, k, v = (torch.randn(B, H, S, d, device="cuda", dtype=torch.float16) for _ in range(3))
        ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal).double()
        out = torch.empty_like(q)
        nm = f"attention_d{d}_{'causal' if causal else 'full'}_128x64_w8"
        ab(f"attention D={d} {'causal' if causal else 'full'}", nm, "attention",
           [ptr(out.data_ptr()), ptr(q.data_ptr()), ptr(k.data_ptr()), ptr(v.data_ptr()),
            i64(B * H), i64(S), i64(S * d), i64(d), f64(1 / math.sqrt(d))], out, ref, 2e-2,
           4 * B * H * S * S * d // (2 if causal else 1))

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

ln = []
for r in (1000, 4096):
    n = 4096
    x = torch.randn(r, n, device="cuda", dtype=torch.float16)
    w_, b_ = torch.randn(n, device="cuda", dtype=torch.float16), torch.randn(n, device="cuda", dtype=torch.float16)
    y = torch.empty_like(x)
    k = lib.kernel(os.path.join(D, "orig", "layernorm_f16_4096_w8.tlb"), "layernorm")
    ft = k.bind([ptr(y.data_ptr()), ptr(x.data_ptr()), ptr(w_.data_ptr()), ptr(b_.data_ptr()), i64(r), i64(n), i64(n), f64(1e-5)], st())
    ftr = lambda: tr_layernorm[(r,)](y, x, w_, b_, n, n, 1e-5, BLOCK=4096, num_warps=8)
    ref = torch.nn.functional.layer_norm(x.double(), (n,), w_.double(), b_.double(), 1e-5)
    ts = {"tile": [], "triton": []}
    for rep in range(3):
        for tag, f in (("tile", ft), ("triton", ftr)):
            y.fill_(float("nan")); f(); torch.cuda.synchronize()
            ok = (y.double() - ref).abs().max().item() < 2e-2
            ts[tag].append(do_bench(f, warmup=25, rep=200, return_mode="median") * 1e3 if ok else float("nan"))
    ln.append(f"| layernorm f16 {r}x{n} BLOCK 4096 w8 | {' / '.join(f'{t:.2f}' for t in ts['tile'])} | {' / '.join(f'{t:.2f}' for t in ts['triton'])} |")
    print(ln[-1], flush=True)
ck = tr_layernorm.warmup(y, x, w_, b_, n, n, 1e-5, BLOCK=4096, num_warps=8, grid=(1,)) if hasattr(tr_layernorm, "warmup") else None
try:
    cache = list(tr_layernorm.device_caches[0][0].values())[-1]
    print("triton layernorm n_regs", cache.n_regs, "n_spills", cache.n_spills, "shared", cache.metadata.shared)
    open(os.path.join(OUT, "tr_layernorm.ptx"), "w").write(cache.asm["ptx"])
    open(os.path.join(OUT, "tr_layernorm.sass"), "w").write(cache.asm.get("sass", ""))
except Exception as e:
    print("triton cache:", type(e).__name__, e)
print("\n| kernel | orig µs (3) | cutlass_ µs (3) | orig TFLOP/s (best) | cutlass_ TFLOP/s (best) | orig ÷ cutlass_ (best) |\n| --- | --- | --- | ---: | ---: | ---: |")
print("\n".join(rows))
print("\n| layernorm | Tile µs (3) | Triton µs (3) |\n| --- | --- | --- |")
print("\n".join(ln))
