# Session 23: PTX edits of the pipelined loop (bench/results' -fence notes in
# PERF.md): the weight-gradient product (matmul_strided's u4 entry, 128x128x32,
# 8 warps, 3 stages: B moved K-major each iteration, A read into registers)
# and the f16 matmul (examples/matmul.tile a16, 128x256x64 w8 s3), base
# against edits, one process, alternated, outputs checked.
#   python3 THIS DIR
import ctypes as C, os, sys, torch
D = sys.argv[1]
torch.backends.cuda.matmul.allow_tf32 = True
cu = C.CDLL("libcuda.so.1")
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
def chk(r, what):
    if r: raise RuntimeError(f"{what}: CUresult {r}")
def load(name, entry, smem):
    m = C.c_void_p(); chk(cu.cuModuleLoadData(C.byref(m), C.c_char_p(open(os.path.join(D, name + ".cubin"), "rb").read())), name)
    f = C.c_void_p(); chk(cu.cuModuleGetFunction(C.byref(f), m, entry.encode()), entry)
    chk(cu.cuFuncSetAttribute(f, 8, smem), "attr")
    return f
def launcher(f, grid, threads, smem, vals):
    params = (C.c_void_p * len(vals))(*[C.cast(C.pointer(v), C.c_void_p) for v in vals])
    def go():
        chk(cu.cuLaunchKernel(f, grid, 1, 1, threads, 1, 1, smem, None, params, None), "launch")
    go.keep = (vals, params)
    return go
def med(fn, n=30):
    for _ in range(5): fn()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(n)]
    for s, e in ev:
        s.record(); fn(); e.record()
    torch.cuda.synchronize()
    t = sorted(s.elapsed_time(e) for s, e in ev)
    return t[n // 2] * 1000
rows = []
# weight gradient: c [M, N] = a^T g, a [K, M], g [K, N]
for M, N, K in [(1024, 4096, 4096), (1024, 8192, 4096)]:
    a = torch.randn(K, M, device="cuda"); g = torch.randn(K, N, device="cuda")
    ref = a.double().t() @ g.double()
    gos = {}
    for v in ("base", "nofence1", "nobar3", "early"):
        c = torch.full((M, N), float("nan"), device="cuda")
        f = load(f"w8-{v}", "matmul_strided__c0__u4", 131072)
        vals = [C.c_uint64(c.data_ptr()), C.c_uint64(a.data_ptr()), C.c_uint64(g.data_ptr()),
                C.c_int32(M), C.c_int32(N), C.c_int32(K), C.c_int32(1), C.c_int32(M), C.c_int32(N), C.c_int32(1)]
        go = launcher(f, (M // 128) * (N // 128), 256, 131072, vals)
        go(); torch.cuda.synchronize()
        err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
        gos[v] = (go, err)
    best = {v: 1e9 for v in gos}
    for _ in range(3):
        for v, (go, err) in gos.items(): best[v] = min(best[v], med(go))
    tb = med(lambda: torch.matmul(a.t(), g))
    for v in gos: rows.append((f"wgrad {M}x{N}x{K}", v, best[v], 2 * M * N * K / best[v] / 1e6, gos[v][1]))
    rows.append((f"wgrad {M}x{N}x{K}", "cuBLAS", tb, 2 * M * N * K / tb / 1e6, 0))
for n in (4096, 8192):
    a = torch.randn(n, n, device="cuda", dtype=torch.float16); b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    ref = (a.double() @ b.double())
    gos = {}
    for v in ("base", "early"):
        c = torch.full((n, n), float("nan"), device="cuda", dtype=torch.float16)
        f = load(f"f16-{v}", "matmul__c0__a16", 147456)
        vals = [C.c_uint64(c.data_ptr()), C.c_uint64(a.data_ptr()), C.c_uint64(b.data_ptr())] + [C.c_int32(n)] * 6
        go = launcher(f, (n // 128) * (n // 256), 256, 147456, vals)
        go(); torch.cuda.synchronize()
        err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
        gos[v] = (go, err)
    best = {v: 1e9 for v in gos}
    for _ in range(3):
        for v, (go, err) in gos.items(): best[v] = min(best[v], med(go))
    tb = med(lambda: torch.matmul(a, b))
    for v in gos: rows.append((f"f16 {n}^3", v, best[v], 2 * n ** 3 / best[v] / 1e6, gos[v][1]))
    rows.append((f"f16 {n}^3", "cuBLAS", tb, 2 * n ** 3 / tb / 1e6, 0))
print("| product | form | us | TFLOP/s | max rel err |")
print("| --- | --- | ---: | ---: | ---: |")
for r in rows:
    print(f"| {r[0]} | {r[1]} | {r[2]:.1f} | {r[3]:.0f} | {r[4]:.1e} |")
