# Session 21: register caps (lower/regcap.c) before/after, one process. DIR/old holds the
# bundles of the compiler before (074c60e), DIR/new the same bundles with the caps (every bench
# bundle whose generic entry got one). Shapes that take the generic variant (odd sizes) and,
# as a control, one aligned shape each; 3 alternations, best median; outputs poisoned and
# checked against float64 first. python3 THIS DIR
import os, sys, torch
from triton.testing import do_bench
sys.path.insert(0, "bench")
from tile_ctypes import Libtile, ptr, i64, f64
D = sys.argv[1]
lib = Libtile(os.path.join(D, "libtile.so")); lib.init()
st = lambda: torch.cuda.current_stream().cuda_stream
lines = []

def ab(label, bundle, kern, args, outs, check):
    fns = {tag: lib.kernel(os.path.join(D, tag, bundle + ".tlb"), kern).bind(args, st())
           for tag in ("old", "new")}
    best, ok = {}, {}
    for rep in range(3):
        for tag, f in fns.items():
            if rep == 0:
                for o in outs:
                    o.fill_(float("nan")) if o.is_floating_point() else o.fill_(-1)
                f(); torch.cuda.synchronize()
                ok[tag] = check()
            t = do_bench(f, warmup=25, rep=100, return_mode="median") * 1e3
            best[tag] = min(best.get(tag, t), t)
    line = (f"| {bundle} | {label} | {best['old']:.2f}{'' if ok['old'] else ' BAD'} | "
            f"{best['new']:.2f}{'' if ok['new'] else ' BAD'} | {best['old'] / best['new']:.3f} |")
    lines.append(line); print(line, flush=True)

def rel(out, ref):
    return ((out.double() - ref).abs().max() / ref.abs().max()).item()

for n in (2 ** 24 + 1, 2 ** 24 - 3, 2 ** 24):
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda"); out = torch.empty_like(x)
    ab(f"n={n}", "vadd", "vadd", [ptr(out.data_ptr()), ptr(x.data_ptr()), ptr(y.data_ptr()), i64(n)],
       [out], lambda: torch.equal(out, x + y))
    xb = x.bfloat16(); ob = torch.empty_like(xb)
    ref = torch.nn.functional.gelu(xb.double() * 1.5 - 0.25)
    ab(f"bf16 n={n}", "bias_gelu_bf16_b1024_w4", "bias_gelu",
       [ptr(ob.data_ptr()), ptr(xb.data_ptr()), f64(1.5), f64(-0.25), i64(n)], [ob], lambda: rel(ob, ref) < 1e-2)
    del x, y, out, xb, ob
R = 4096
for bundle, cols in (("softmax_f32_4096_w4", (4093, 4095, 4096)), ("shapes_softmax_f32_b8192_w8", (4097, 4099, 4104))):
    for n in cols:
        x = torch.randn(R, n, device="cuda"); out = torch.empty_like(x)
        ref = torch.softmax(x.double(), -1)
        ab(f"{R}x{n}", bundle, "softmax", [ptr(out.data_ptr()), ptr(x.data_ptr()), i64(R), i64(n), i64(n)],
           [out], lambda: rel(out, ref) < 1e-5)
for bundle, cols in (("layernorm_f16_4096_w8", (4093, 4095, 4096)), ("layernorm_f16_4096_w4", (4093, 4096)),
                     ("layernorm_f16_8192_w8", (4097, 4099, 4104)), ("layernorm_f16_8192_w4", (4097, 4104)),
                     ("layernorm_f16_8192_w16", (4097, 4104))):
    for n in cols:
        x = torch.randn(R, n, device="cuda", dtype=torch.float16)
        w_, b_ = torch.randn(n, device="cuda", dtype=torch.float16), torch.randn(n, device="cuda", dtype=torch.float16)
        y = torch.empty_like(x)
        ref = torch.nn.functional.layer_norm(x.double(), (n,), w_.double(), b_.double(), 1e-5)
        ab(f"{R}x{n}", bundle, "layernorm", [ptr(y.data_ptr()), ptr(x.data_ptr()), ptr(w_.data_ptr()),
           ptr(b_.data_ptr()), i64(R), i64(n), i64(n), f64(1e-5)], [y], lambda: rel(y, ref) < 5e-3)
for n in (4093, 4096):
    x = torch.randn(R, n, device="cuda"); val = torch.empty(R, device="cuda"); idx = torch.empty(R, device="cuda", dtype=torch.int32)
    ls = torch.log_softmax(x.double(), -1); rv, ri = ls.max(-1)
    ab(f"{R}x{n}", "user_top1_BLOCK_4096_w8", "top1", [ptr(val.data_ptr()), ptr(idx.data_ptr()), ptr(x.data_ptr()), i64(R), i64(n)],
       [val, idx], lambda: rel(val, rv) < 1e-5 and torch.equal(idx.long(), ri))
    xh = torch.randn(R, n, device="cuda", dtype=torch.float16)
    q = torch.empty(R, n, device="cuda", dtype=torch.float8_e4m3fn); sc = torch.empty(R, device="cuda")
    rs = xh.double().abs().amax(-1) / 448
    def qok():
        return rel(sc, rs) < 1e-5 and rel(q.double() * sc.double()[:, None], xh.double()) < 0.07
    ab(f"{R}x{n}", "user_quant_f8_BLOCK_4096_w8", "quant_f8", [ptr(q.data_ptr()), ptr(sc.data_ptr()), ptr(xh.data_ptr()), i64(R), i64(n)],
       [sc], qok)
for rows, n in ((8192, 4095), (8192, 4096), (100000, 255)):
    x = torch.randn(rows, n, device="cuda", dtype=torch.float16); out = torch.empty(n, device="cuda")
    ref = x.double().sum(0)
    ab(f"{rows}x{n}", "colsum_f16_256x16_w8", "colsum", [ptr(out.data_ptr()), ptr(x.data_ptr()), i64(rows), i64(n), i64(n)],
       [out], lambda: rel(out, ref) < 1e-5)
print("\n| bundle | shape | before (074c60e) µs | after (caps) µs | before ÷ after |\n| --- | --- | ---: | ---: | ---: |")
print("\n".join(lines))
