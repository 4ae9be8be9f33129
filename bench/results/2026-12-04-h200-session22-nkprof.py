# Session 22: one launch each of the f16 products at 4096^3 with B stored [K, N] and [N, K]
# (the a16 entries of 128x256x64 w8 cubins, as in -l2hint.py), for Nsight Compute:
#   ncu --clock-control none -k regex:matmul --metrics ... python3 THIS DIR
import ctypes as C, os, sys, torch
D = sys.argv[1]
cu = C.CDLL("libcuda.so.1")
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
def chk(r, what):
    if r: raise RuntimeError(f"{what}: CUresult {r}")
n, SMEM = 4096, 147456
a = torch.rand(n, n, device="cuda", dtype=torch.float16)
b = torch.rand(n, n, device="cuda", dtype=torch.float16)
out = torch.empty(n, n, device="cuda", dtype=torch.float16)
for kern, name in (("kn", "matmul__c0__a16"), ("bt", "matmul_bt__c0__a16")):
    m = C.c_void_p(); chk(cu.cuModuleLoadData(C.byref(m), C.c_char_p(open(os.path.join(D, "l2", f"{kern}-none.cubin"), "rb").read())), kern)
    f = C.c_void_p(); chk(cu.cuModuleGetFunction(C.byref(f), m, name.encode()), name)
    chk(cu.cuFuncSetAttribute(f, 8, SMEM), "attr")
    vals = [C.c_uint64(out.data_ptr()), C.c_uint64(a.data_ptr()), C.c_uint64(b.data_ptr())] + [C.c_int32(n)] * 6
    params = (C.c_void_p * len(vals))(*[C.cast(C.pointer(v), C.c_void_p) for v in vals])
    for _ in range(2):
        chk(cu.cuLaunchKernel(f, (n // 128) * (n // 256), 1, 1, 256, 1, 1, SMEM, None, params, None), "launch")
    torch.cuda.synchronize()
print("done")
