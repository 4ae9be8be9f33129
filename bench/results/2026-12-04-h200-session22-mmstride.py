# Session 22: why matmul 4104^3 (128x256x64 w8, a16) costs more than 4160^3 with the same tile
# count: the same product with other strides and K. One process, 3 alternations, best median,
# outputs checked. python3 THIS BUILD_DIR
import os, sys, torch
from triton.testing import do_bench
sys.path.insert(0, "bench")
from tile_ctypes import Libtile, ptr, i64
D = sys.argv[1]
lib = Libtile(os.path.join(D, "libtile.so")); lib.init()
st = torch.cuda.current_stream().cuda_stream
k = lib.kernel(os.path.join(D, "bench", "matmul_f16_128x256x64_w8.tlb"), "matmul")
cases = [  # label, M, N, K, lda, ldb, ldc
    ("4104^3 compact", 4104, 4104, 4104, 4104, 4104, 4104),
    ("4104^3, strides 4160", 4104, 4104, 4104, 4160, 4160, 4160),
    ("4104^3, strides 4224", 4104, 4104, 4104, 4224, 4224, 4224),
    ("M=N=4104 K=4096, compact", 4104, 4104, 4096, 4096, 4104, 4104),
    ("M=N=4104 K=4160, compact", 4104, 4104, 4160, 4160, 4104, 4104),
    ("M=N=4104 K=4104, lda 4160 only", 4104, 4104, 4104, 4160, 4104, 4104),
    ("M=N=4104 K=4104, ldb 4160 only", 4104, 4104, 4104, 4104, 4160, 4104),
    ("M=N=4104 K=4104, ldc 4160 only", 4104, 4104, 4104, 4104, 4104, 4160),
    ("4160^3 compact", 4160, 4160, 4160, 4160, 4160, 4160),
    ("4096^3 compact", 4096, 4096, 4096, 4096, 4096, 4096),
]
fns, chk = {}, {}
bufs = []
for label, M, N, K, lda, ldb, ldc in cases:
    A = torch.rand(M, lda, device="cuda", dtype=torch.float16) * 2 - 1
    Bm = torch.rand(K, ldb, device="cuda", dtype=torch.float16) * 2 - 1
    C = torch.empty(M, ldc, device="cuda", dtype=torch.float16)
    a, b, c = A[:, :K], Bm[:, :N], C[:, :N]
    bufs.append((A, Bm, C))
    f = k.bind([ptr(C.data_ptr()), ptr(A.data_ptr()), ptr(Bm.data_ptr()), i64(M), i64(N), i64(K),
                i64(lda), i64(ldb), i64(ldc)], st)
    C.fill_(float("nan")); f(); torch.cuda.synchronize()
    ref = a.double() @ b.double()
    chk[label] = ((c.double() - ref).abs().max() / ref.abs().max()).item() < 2e-2
    fns[label] = (f, 2 * M * N * K)
best = {}
for r in range(3):
    for label, (f, fl) in fns.items():
        ms = do_bench(f, warmup=25, rep=100, return_mode="median")
        best[label] = min(best.get(label, ms), ms)
print("| case | µs | TFLOP/s | checked |\n| --- | ---: | ---: | --- |")
for label, (f, fl) in fns.items():
    print(f"| {label} | {best[label] * 1e3:.1f} | {fl / best[label] / 1e9:.0f} | {'ok' if chk[label] else 'BAD'} |")
