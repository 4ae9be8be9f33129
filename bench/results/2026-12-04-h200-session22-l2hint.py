# Session 22: cp.async's L2 prefetch-size qualifier on the f16 products (128x256x64 w8, a16
# entries launched directly with cuLaunchKernel): the PTX tilec emits (none), and the same with
# .L2::128B or .L2::256B on every cp.async; B stored [K, N] (examples/matmul.tile, "kn") and
# [N, K] (bench/kernels/matmul_bt.tile, "nk"); cuBLAS beside. One process, 3 alternations, best
# median, outputs checked against float64 first. python3 THIS DIR
import ctypes as C, os, sys, torch
from triton.testing import do_bench
D = sys.argv[1]
cu = C.CDLL("libcuda.so.1")
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
def chk(r, what):
    if r: raise RuntimeError(f"{what}: CUresult {r}")
def func(path, name, smem):
    m = C.c_void_p(); chk(cu.cuModuleLoadData(C.byref(m), C.c_char_p(open(path, "rb").read())), path)
    f = C.c_void_p(); chk(cu.cuModuleGetFunction(C.byref(f), m, name.encode()), name)
    chk(cu.cuFuncSetAttribute(f, 8, smem), "smem attr")   # MAX_DYNAMIC_SHARED_SIZE_BYTES
    return f, m
SMEM = 147456
rows = []
for n in (4096, 8192):
    a = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
    b = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
    out = torch.empty(n, n, device="cuda", dtype=torch.float16)
    for lay, kern, name in (("kn", "kn", "matmul__c0__a16"), ("nk", "bt", "matmul_bt__c0__a16")):
        ref = a.double() @ (b.double() if lay == "kn" else b.double().T)
        fns, ok = {}, {}
        for tag in ("none", "128B", "256B"):
            f, m = func(os.path.join(D, "l2", f"{kern}-{tag}.cubin"), name, SMEM)
            vals = [C.c_uint64(out.data_ptr()), C.c_uint64(a.data_ptr()), C.c_uint64(b.data_ptr())] + \
                   [C.c_int32(n)] * 6
            params = (C.c_void_p * len(vals))(*[C.cast(C.pointer(v), C.c_void_p) for v in vals])
            grid = (n // 128) * (n // 256)
            def go(f=f, params=params, vals=vals, m=m):
                s = C.c_void_p(torch.cuda.current_stream().cuda_stream)
                chk(cu.cuLaunchKernel(f, grid, 1, 1, 256, 1, 1, SMEM, s, params, None), "launch")
            fns[tag] = go
        fns["cublas"] = (lambda: torch.matmul(a, b, out=out)) if lay == "kn" else (lambda: torch.matmul(a, b.T, out=out))
        best = {}
        for r in range(3):
            items = list(fns.items()); items = items[r:] + items[:r]
            for tag, f in items:
                if r == 0:
                    out.fill_(float("nan")); f(); torch.cuda.synchronize()
                    ok[tag] = ((out.double() - ref).abs().max() / ref.abs().max()).item() < 2e-2
                ms = do_bench(f, warmup=25, rep=100, return_mode="median")
                best[tag] = min(best.get(tag, ms), ms)
        line = f"| {lay} {n}^3 | " + " | ".join(f"{best[t] * 1e3:.1f}{'' if ok[t] else ' BAD'}" for t in fns) + " |"
        rows.append(line); print(line, flush=True)
print("\n| product | none µs | .L2::128B | .L2::256B | cuBLAS |\n| --- | ---: | ---: | ---: | ---: |")
print("\n".join(rows))
