# Session 22: matmul f16 n^3 just above 4096 (4104 = 4096 + 8, then 4160, 4224, 4352: the same
# 33 x 17 tiles of 128x256 up to 4224) beside 4096: Tile (matmul_f16_128x256x64_w8, and the
# 128x128x32 w4 bundle), Triton (tr_matmul, same tiles, 3 stages), cuBLAS; one process,
# 3 alternations, best median, outputs checked against float64 first. python3 THIS BUILD_DIR
import os, sys, torch, triton
from triton.testing import do_bench
sys.path.insert(0, "bench")
import bench as B
from tile_ctypes import Libtile, ptr, i64
import triton.language as tl
B.torch, B.triton, B.tl = torch, triton, tl
B.define_triton_matmul()
D = sys.argv[1]
lib = Libtile(os.path.join(D, "libtile.so")); lib.init()
st = torch.cuda.current_stream().cuda_stream
print("| n | tiles 128x256 | Tile 128x256 µs | Tile 128x128 µs | Triton 128x256 µs | cuBLAS µs | Tile 128x256 TFLOP/s |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for n in (4096, 4104, 4160, 4224, 4352):
    a = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
    b = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
    out = torch.empty(n, n, device="cuda", dtype=torch.float16)
    ref = a.double() @ b.double()
    fns = {}
    for bm, bn, bk, w in ((128, 256, 64, 8), (128, 128, 32, 4)):
        k = lib.kernel(os.path.join(D, "bench", f"matmul_f16_{bm}x{bn}x{bk}_w{w}.tlb"), "matmul")
        fns[f"tile{bn}"] = k.bind([ptr(out.data_ptr()), ptr(a.data_ptr()), ptr(b.data_ptr())] + [i64(n)] * 6, st)
    grid = (triton.cdiv(n, 128) * triton.cdiv(n, 256),)
    fns["triton"] = lambda: B.tr_matmul[grid](out, a, b, a, n, n, n, n, 1, n, 1, n, BM=128, BN=256, BK=64,
                                             GROUP=8, EPI=False, num_warps=8, num_stages=3)
    fns["cublas"] = lambda: torch.matmul(a, b, out=out)
    best, ok = {}, {}
    for r in range(3):
        items = list(fns.items()); items = items[r:] + items[:r]
        for name, f in items:
            if r == 0:
                out.fill_(float("nan")); f(); torch.cuda.synchronize()
                ok[name] = ((out.double() - ref).abs().max() / ref.abs().max()).item() < 2e-2
            ms = do_bench(f, warmup=25, rep=100, return_mode="median")
            best[name] = min(best.get(name, ms), ms)
    cell = lambda k: f"{best[k] * 1e3:.1f}{'' if ok[k] else ' BAD'}"
    print(f"| {n} | {grid[0]} | {cell('tile256')} | {cell('tile128')} | {cell('triton')} | {cell('cublas')} | "
          f"{2 * n ** 3 / best['tile256'] / 1e9:.0f} |", flush=True)
    del a, b, out, ref
