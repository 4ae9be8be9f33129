# Session 21: Triton's f16 matmul (bench.py tr_matmul, 128x256x64, 8 warps, 3 stages, GROUP 8)
# at 4096^3: registers, shared memory, PTX and SASS written to $OUT for comparison with Tile's
# (matmul_f16_128x256x64_w8), and both timed in one process (3 alternations, best median),
# Tile's two stage counts launched through its tuner. python3 THIS BUILD_DIR
import os, sys, torch, triton
from triton.testing import do_bench
sys.path.insert(0, "bench")
import bench as B
from tile_ctypes import Libtile, ptr, i64
D = sys.argv[1]; OUT = os.environ.get("OUT", "/tmp")
import triton.language as tl
B.torch, B.triton, B.tl = torch, triton, tl
B.define_triton_matmul()
lib = Libtile(os.path.join(D, "libtile.so")); lib.init()
n = 4096
a = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
b = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
out = torch.empty(n, n, device="cuda", dtype=torch.float16)
ref = a.double() @ b.double()
grid = (triton.cdiv(n, 128) * triton.cdiv(n, 256),)
res = {}
for s in (3, 4):
    ck = B.tr_matmul[grid](out, a, b, a, n, n, n, n, 1, n, 1, n, BM=128, BN=256, BK=64, GROUP=8,
                           EPI=False, num_warps=8, num_stages=s)
    torch.cuda.synchronize()
    print(f"triton s{s}: n_regs {ck.n_regs} spills {ck.n_spills} shared {ck.metadata.shared}", flush=True)
    open(os.path.join(OUT, f"tr_matmul_s{s}.ptx"), "w").write(ck.asm["ptx"])
    try:
        open(os.path.join(OUT, f"tr_matmul_s{s}.sass"), "w").write(ck.asm["sass"])
    except Exception as e:
        print("sass:", type(e).__name__, e)
    res[f"triton s{s}"] = (lambda s=s: B.tr_matmul[grid](out, a, b, a, n, n, n, n, 1, n, 1, n, BM=128, BN=256,
                                                         BK=64, GROUP=8, EPI=False, num_warps=8, num_stages=s))
k = lib.kernel(os.path.join(D, "bench", "matmul_f16_128x256x64_w8.tlb"), "matmul")
res["tile (tuned)"] = k.bind([ptr(out.data_ptr()), ptr(a.data_ptr()), ptr(b.data_ptr())] + [i64(n)] * 6,
                             torch.cuda.current_stream().cuda_stream)
res["cublas"] = lambda: torch.matmul(a, b, out=out)
best = {}
for r in range(3):
    for name, f in res.items():
        out.fill_(float("nan")); f(); torch.cuda.synchronize()
        err = ((out.double() - ref).abs().max() / ref.abs().max()).item()
        t = do_bench(f, warmup=25, rep=200, return_mode="median") * 1e3
        best.setdefault(name, []).append(f"{t:.1f}{'' if err < 1e-2 else ' BAD'}")
print("| system | µs (3 rounds) |\n| --- | --- |")
for name, ts in best.items():
    print(f"| {name} | {' / '.join(ts)} |")
