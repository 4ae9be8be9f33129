# Session 22: a TF32 product with B stored [K, N] (x @ w) as written (examples/matmul.tile: B
# loaded along N, moved K-major into stage buffers each iteration) against the same product with
# its operands swapped by hand (bench/kernels/matmul_kn_swap.tile: C^T = B^T A^T, B from
# registers as wgmma's A, A K-major), each at three tiles, beside cuBLAS (TF32 allowed). One
# process, 3 alternations, best median, outputs poisoned and checked against float64 first.
# python3 THIS DIR
import os, sys, torch
from triton.testing import do_bench
sys.path.insert(0, "bench")
from tile_ctypes import Libtile, ptr, i64
torch.backends.cuda.matmul.allow_tf32 = True
D = sys.argv[1]
lib = Libtile(os.path.join(D, "libtile.so")); lib.init()
st = torch.cuda.current_stream().cuda_stream
TILES = ("128x256x32_w8", "256x128x32_w8", "128x128x32_w4")
rows = []
for (M, N, K) in ((4096, 4096, 4096), (8192, 8192, 8192), (4096, 4093, 4096), (8192, 3072, 768)):
    a = torch.rand(M, K, device="cuda") * 2 - 1
    b = torch.rand(K, N, device="cuda") * 2 - 1
    out = torch.empty(M, N, device="cuda")
    ref = a.double() @ b.double()
    args = [ptr(out.data_ptr()), ptr(a.data_ptr()), ptr(b.data_ptr()), i64(M), i64(N), i64(K), i64(K), i64(N), i64(N)]
    fns = {}
    for t in TILES:
        fns[f"kn {t}"] = lib.kernel(os.path.join(D, "swap", f"kn_{t}.tlb"), "matmul").bind(args, st)
        fns[f"swap {t}"] = lib.kernel(os.path.join(D, "swap", f"swap_{t}.tlb"), "matmul_kn_swap").bind(args, st)
    fns["cublas"] = lambda: torch.matmul(a, b, out=out)
    best, err = {}, {}
    for r in range(3):
        items = list(fns.items()); items = items[r:] + items[:r]
        for name, f in items:
            if r == 0:
                out.fill_(float("nan")); f(); torch.cuda.synchronize()
                err[name] = ((out.double() - ref).abs().max() / ref.abs().max()).item()
            ms = do_bench(f, warmup=25, rep=100, return_mode="median")
            best[name] = min(best.get(name, ms), ms)
    line = f"| {M}x{N}x{K} | " + " | ".join(f"{best[k] * 1e3:.1f}{'' if err[k] < 1e-2 else ' BAD'}" for k in fns) + " |"
    rows.append(line); print(line, flush=True)
    del a, b, out, ref
    torch.cuda.empty_cache()
names = [f"kn {t}" for t in TILES]
print("\n| M x N x K | " + " | ".join(f"{p} {t}" for t in TILES for p in ("as written", "swapped")) + " | cuBLAS |")
print("| --- |" + " ---: |" * (2 * len(TILES) + 1))
print("\n".join(rows))
