# Session 23: the weight gradients of the f32 training test (x^T @ g, both
# operands along M / N: matmul_strided's variant with sam = sbn = 1) at each
# tile of mms.tile's cubins, beside cuBLAS (torch, TF32), one process.
#   python3 THIS DIR [--ncu NAME M N K]   (DIR: cubins and entries.txt)
import ctypes as C, os, sys, torch
D = sys.argv[1]
torch.backends.cuda.matmul.allow_tf32 = True
cu = C.CDLL("libcuda.so.1")
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
def chk(r, what):
    if r: raise RuntimeError(f"{what}: CUresult {r}")
ents = [l.split() for l in open(os.path.join(D, os.environ.get("ENTRIES", "entries.txt"))) if l.strip()]
SHAPES = [(1024, 4096, 4096), (4096, 1024, 4096), (1024, 8192, 4096)]   # M N K of dW = a^T g
def load(name, entry, smem):
    m = C.c_void_p(); chk(cu.cuModuleLoadData(C.byref(m), C.c_char_p(open(os.path.join(D, name + ".cubin"), "rb").read())), name)
    f = C.c_void_p(); chk(cu.cuModuleGetFunction(C.byref(f), m, entry.encode()), entry)
    chk(cu.cuFuncSetAttribute(f, 8, smem), "attr")
    return f
def launcher(f, bm, bn, warps, smem, c, a, g, M, N, K):
    vals = [C.c_uint64(c.data_ptr()), C.c_uint64(a.data_ptr()), C.c_uint64(g.data_ptr()),
            C.c_int32(M), C.c_int32(N), C.c_int32(K), C.c_int32(1), C.c_int32(M), C.c_int32(N), C.c_int32(1)]
    params = (C.c_void_p * len(vals))(*[C.cast(C.pointer(v), C.c_void_p) for v in vals])
    grid = -(-M // bm) * -(-N // bn)
    def go():
        chk(cu.cuLaunchKernel(f, grid, 1, 1, 32 * warps, 1, 1, smem, None, params, None), "launch")
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
if len(sys.argv) > 2 and sys.argv[2] == "--ncu":
    name, M, N, K = sys.argv[3], *map(int, sys.argv[4:7])
    e = next(x for x in ents if x[0] == name)
    f = load(e[0], e[1], int(e[5]))
    a = torch.randn(K, M, device="cuda"); g = torch.randn(K, N, device="cuda"); c = torch.empty(M, N, device="cuda")
    go = launcher(f, int(e[2]), int(e[3]), int(e[4]), int(e[5]), c, a, g, M, N, K)
    go(); go(); torch.cuda.synchronize(); print("done"); sys.exit(0)
rows = []
for M, N, K in SHAPES:
    a = torch.randn(K, M, device="cuda"); g = torch.randn(K, N, device="cuda")
    ref = (a.double().t() @ g.double())
    tb = med(lambda: torch.matmul(a.t(), g))
    rows.append((f"{M}x{N}x{K}", "cuBLAS", tb, 2 * M * N * K / tb / 1e6, 0.0))
    for e in ents:
        f = load(e[0], e[1], int(e[5]))
        c = torch.full((M, N), float("nan"), device="cuda")
        go = launcher(f, int(e[2]), int(e[3]), int(e[4]), int(e[5]), c, a, g, M, N, K)
        go(); torch.cuda.synchronize()
        err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
        t = med(go)
        rows.append((f"{M}x{N}x{K}", e[0], t, 2 * M * N * K / t / 1e6, err))
print("| M x N x K | kernel | us | TFLOP/s | max rel err |")
print("| --- | --- | ---: | ---: | ---: |")
for r in rows:
    print(f"| {r[0]} | {r[1]} | {r[2]:.1f} | {r[3]:.0f} | {r[4]:.1e} |")
