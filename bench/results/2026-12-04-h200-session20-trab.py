# transpose: libtile before/after the L1 carveout, Triton beside, one process
# The list of sizes and tiles at the bottom changed from run to run (4, 6-8, 10, 12, 13); each
# run's results file shows the rows it ran. This is the form of run 13.
import os, sys, torch, triton, triton.language as tl
from triton.testing import do_bench
sys.path.insert(0, "bench")
from tile_ctypes import Libtile, ptr, i64
D = sys.argv[1]
os.environ["TILE_VERBOSE"] = "1"
libs = {}
NEWD = sys.argv[2]
dirs = {"old": D, "new": NEWD}
for tag, so in (("old", os.path.join(D, "libtile.so")), ("new", os.path.join(NEWD, "libtile.so"))):
    libs[tag] = Libtile(so); libs[tag].init()

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
def case(n, b, tcfg):
    x = torch.randn(n, n, device="cuda"); out = torch.full((n, n), float("nan"), device="cuda")
    ref = x.t().contiguous(); res = {}
    fns = {}
    for tag, lib in libs.items():
        k = lib.kernel(os.path.join(dirs[tag], "bench", b + ".tlb"), "transpose")
        fns[tag] = k.bind([ptr(out.data_ptr()), ptr(x.data_ptr()), i64(n), i64(n), i64(n), i64(n)], st())
    bm, bn, w = tcfg
    g = (triton.cdiv(n, bm), triton.cdiv(n, bn))
    fns["triton"] = lambda: tr_transpose[g](out, x, n, n, n, n, BM=bm, BN=bn, num_warps=w)
    for rep in range(2):
        for tag, f in fns.items():
            out.fill_(float("nan")); f(); torch.cuda.synchronize()
            ok = torch.equal(out, ref)
            t = do_bench(f, warmup=25, rep=100, return_mode="median") * 1e3
            res.setdefault(tag, []).append(f"{t:.1f}{'' if ok else ' BAD'}")
    line = f"| {b[10:]} | {n} | " + " | ".join("/".join(res[t]) for t in ("old", "new", "triton")) + " |"
    rows_out.append(line); print(line, flush=True)
for b, cfg in (("transpose_64x64_w4", (64, 64, 4)), ("transpose_64x64_w8", (64, 64, 8)), ("transpose_32x64_w4", (32, 64, 4)), ("transpose_32x32_w4", (32, 32, 4))):
    for n in (2560, 3000, 4093, 8189, 8192, 8200):
        case(n, b, cfg)
print("| tile | n | before (v3 bundles, driver carveout) µs, 2 alternations | after (l1_programs) | Triton |\n| --- | --- | ---: | ---: | ---: |")
print("\n".join(rows_out))
