# Session 22: plan/swap_dot.c before/after. TF32 x @ w with w [K, N] (examples/matmul.tile) from
# the tilec before it (DIR/before, 205cdf2) and with it (DIR/after: the products whose output
# tile has N <= M computed as C^T = B^T A^T), beside the hand-swapped kernel
# (bench/kernels/matmul_kn_swap.tile, DIR/hand) and cuBLAS (TF32 allowed). One process, 3
# alternations, best median, outputs poisoned and checked against float64 first.
# python3 THIS DIR
import os, sys, torch
from triton.testing import do_bench
sys.path.insert(0, "bench")
from tile_ctypes import Libtile, ptr, i64
torch.backends.cuda.matmul.allow_tf32 = True
D = sys.argv[1]
lib = Libtile(os.path.join(D, "libtile.so")); lib.init()
st = torch.cuda.current_stream().cuda_stream
TILES = ("256x128x32_w8", "128x128x32_w4", "128x256x32_w8")
rows = []
for (M, N, K) in ((4096, 4096, 4096), (8192, 8192, 8192), (8192, 3072, 768), (8192, 768, 3072),
                  (4093, 4096, 4096), (4096, 4093, 4096)):
    a = torch.rand(M, K, device="cuda") * 2 - 1
    b = torch.rand(K, N, device="cuda") * 2 - 1
    out = torch.empty(M, N, device="cuda")
    ref = a.double() @ b.double()
    args = [ptr(out.data_ptr()), ptr(a.data_ptr()), ptr(b.data_ptr()), i64(M), i64(N), i64(K), i64(K), i64(N), i64(N)]
    fns = {}
    for t in TILES:
        for tag in ("before", "after", "hand"):
            path = os.path.join(D, tag, f"{t}.tlb")
            kern = "matmul_kn_swap" if tag == "hand" else "matmul"
            if os.path.exists(path):
                fns[f"{tag} {t}"] = lib.kernel(path, kern).bind(args, st)
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
print("\n| M x N x K | " + " | ".join(k for k in fns) + " |")
print("| --- |" + " ---: |" * len(fns))
print("\n".join(rows))
