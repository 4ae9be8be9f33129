# transpose experiments at 8200: which facts make Tile slow there
import os, sys, torch, triton, triton.language as tl
from triton.testing import do_bench
sys.path.insert(0, "bench")
from tile_ctypes import Libtile, ptr, i64
D = sys.argv[1]
lib = Libtile(os.path.join(D, "libtile.so")); lib.init()

@triton.jit
def tr_transpose(out, x, rows, cols, x_stride, out_stride, BM: tl.constexpr, BN: tl.constexpr):
    r = (tl.program_id(0) * BM + tl.arange(0, BM))[:, None]
    c = (tl.program_id(1) * BN + tl.arange(0, BN))[None, :]
    keep = (r < rows) & (c < cols)
    v = tl.load(x + r * x_stride + c, mask=keep)
    tl.store(out + c * out_stride + r, v, mask=keep)

def st():
    return torch.cuda.current_stream().cuda_stream

rows_out = []
def case(label, n, stride, bundles, triton_cfg=(64, 64, 4)):
    xs = torch.randn(n, stride, device="cuda")
    os_ = torch.full((n, stride), float("nan"), device="cuda")
    x = xs[:, :n]; ref = x.t().contiguous()
    res = [label]
    for b in bundles:
        k = lib.kernel(os.path.join(D, "bench", b + ".tlb"), "transpose")
        os_.fill_(float("nan"))
        f = k.bind([ptr(os_.data_ptr()), ptr(xs.data_ptr()), i64(n), i64(n), i64(stride), i64(stride)], st())
        f(); torch.cuda.synchronize()
        ok = torch.equal(os_[:, :n], ref)
        t = do_bench(f, warmup=25, rep=100, return_mode="median") * 1e3
        res.append(f"{b[10:]} {t:.1f}{'' if ok else ' BAD'}")
    bm, bn, w = triton_cfg
    os_.fill_(float("nan"))
    g = (triton.cdiv(n, bm), triton.cdiv(n, bn))
    f = lambda: tr_transpose[g](os_, xs, n, n, stride, stride, BM=bm, BN=bn, num_warps=w)
    f(); torch.cuda.synchronize()
    ok = torch.equal(os_[:, :n], ref)
    t = do_bench(f, warmup=25, rep=100, return_mode="median") * 1e3
    res.append(f"triton {t:.1f}{'' if ok else ' BAD'}")
    rows_out.append(" | ".join(res)); print(rows_out[-1], flush=True)

B = ["transpose_64x64_w4", "transpose_64x64_w8", "transpose_32x64_w4", "transpose_32x32_w4"]
for rep in range(2):
    case("8192 s8192", 8192, 8192, B)
    case("8200 s8200", 8200, 8200, B)
    case("8200 s8224", 8200, 8224, B)
    case("8192 s8200", 8192, 8200, B)
    case("8199 s8200 (generic)", 8199, 8200, B[:1])
    case("8196 s8196", 8196, 8196, B[:1])
    case("8208 s8208", 8208, 8208, B[:1])
print("\n".join(rows_out))
