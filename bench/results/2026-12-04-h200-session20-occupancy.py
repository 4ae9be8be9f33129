# Session 20 runs 2-5: transpose__c0__{a16,g} (64x64 cubins tr64w4/w8.cubin) launched directly,
# programs per SM limited by extra dynamic shared memory (run 2) or by the preferred carveout
# (runs 3, 4b, 5, 11). python3 THIS DIR RUN, RUN in 2 3 4b 5 11; DIR holds the cubins
# tr64w4, tr64w8, tr3264w4, tr3232w4 (tilec --emit=cubin --arch=sm_90a -D BM -D BN -D warps).
import ctypes as C, sys, torch, triton
from triton.testing import do_bench
D, RUN = sys.argv[1], sys.argv[2]
cu = C.CDLL("libcuda.so.1")
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
def chk(r, what):
    if r: raise RuntimeError(f"{what}: CUresult {r}")
def load(path):
    m = C.c_void_p(); data = open(path, "rb").read()
    chk(cu.cuModuleLoadData(C.byref(m), C.c_char_p(data)), "load")
    return m
def func(m, name):
    f = C.c_void_p(); chk(cu.cuModuleGetFunction(C.byref(f), m, name.encode()), name); return f
def occ(f, threads, dyn):
    n = C.c_int(); chk(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(C.byref(n), f, threads, C.c_size_t(dyn)), "occ"); return n.value
mods = {4: load(f"{D}/tr64w4.cubin"), 8: load(f"{D}/tr64w8.cubin"),
        "tr3264w4": load(f"{D}/tr3264w4.cubin"), "tr3232w4": load(f"{D}/tr3232w4.cubin")}
TILE = {4: (64, 64, 4), 8: (64, 64, 8), "tr3264w4": (32, 64, 4), "tr3232w4": (32, 32, 4)}
res = []
def run(label, w, var, n, stride, dyn):
    f = func(mods[w], f"transpose__c0__{var}")
    if dyn > 48 * 1024 - 16932:
        chk(cu.cuFuncSetAttribute(f, 8, C.c_int(dyn)), "maxdyn")  # MAX_DYNAMIC_SHARED_SIZE_BYTES
    xs = torch.randn(n, stride, device="cuda"); out = torch.full((n, stride), float("nan"), device="cuda")
    vals = [C.c_uint64(out.data_ptr()), C.c_uint64(xs.data_ptr()), C.c_int32(n), C.c_int32(n), C.c_int32(stride), C.c_int32(stride)]
    params = (C.c_void_p * 6)(*[C.cast(C.pointer(v), C.c_void_p) for v in vals])
    bm, bn, wp = TILE[w]; th = 32 * wp
    s = C.c_void_p(torch.cuda.current_stream().cuda_stream)
    def go():
        chk(cu.cuLaunchKernel(f, (n + bm - 1) // bm, (n + bn - 1) // bn, 1, th, 1, 1, dyn, s, params, None), "launch")
    go(); torch.cuda.synchronize()
    ok = torch.equal(out[:, :n], xs[:, :n].t())
    t = do_bench(go, warmup=25, rep=100, return_mode="median") * 1e3
    res.append(f"{label} w{w} {var} n={n} s={stride} dyn={dyn} blocks/SM={occ(f, th, dyn)} {t:.1f} us{'' if ok else ' BAD'}")
    print(res[-1], flush=True)

def runc(label, w, var, n, st, pct):
    rund(label, w, var, n, st, pct, 0)

def rund(label, w, var, n, st, pct, dyn):
    f = func(mods[w], f"transpose__c0__{var}")
    chk(cu.cuFuncSetAttribute(f, 9, C.c_int(pct)), "carveout")
    run(label + f" carve={pct}", w, var, n, st, dyn)

if RUN == "2":
    for n, s in ((8200, 8200), (8192, 8192)):
        for dyn in (0, 4096, 8192, 12288, 16384, 24576, 40000):
            run("A", 4, "a16", n, s, dyn)
        for dyn in (0, 8192, 24576):
            run("B", 8, "a16", n, s, dyn)
    for dyn in (0, 8192, 16384):
        run("C", 4, "g", 8199, 8200, dyn)
    print("\n".join(res))

if RUN == "3":
    for n, st in ((8200, 8200), (8192, 8192), (8208, 8208)):
        for pct in (100, 80, 70, 60, 50, 40, 30):
            runc("A", 4, "a16", n, st, pct)
        for pct in (100, 60, 50, 40):
            runc("B", 8, "a16", n, st, pct)
    for pct in (100, 60, 50, 40):
        runc("C", 4, "g", 8199, 8200, pct)
    print("\n".join(res))

if RUN == "4b":
    for n, st in ((8189, 8189), (8193, 8193), (8199, 8200)):
        for pct in (100, 90, 85, 80, 77, 70, 60, 50, 40):
            runc("G", 4, "g", n, st, pct)
    for pct in (100, 77, 60, 50):
        runc("A", 4, "a16", 8200, 8200, pct)
    print("\n".join(res))

if RUN == "5":
    for var, n, st in (("g", 8189, 8189), ("g", 8199, 8200), ("a16", 8200, 8200), ("a16", 8192, 8192), ("a16", 8208, 8208)):
        for pct, dyn in ((100, 0), (100, 12288), (100, 24576), (100, 40000), (60, 12288), (40, 0), (25, 0), (20, 0), (15, 0), (10, 0)):
            rund("X", 4, var, n, st, pct, dyn)
    print("\n".join(res))

if RUN == "11":
    for name in ("tr64w8", "tr3264w4", "tr3232w4"):
        key = 8 if name == "tr64w8" else name
        for n, st in ((8189, 8189), (8192, 8192), (8200, 8200)):
            for pct in (100, 60, 40, 25, 20, 15):
                runc(name, key, "a16" if n % 4 == 0 else "g", n, st, pct)
    print("\n".join(res))
