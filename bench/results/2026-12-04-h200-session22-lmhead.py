# Session 22: the l16 variant (plan/guard.c) on a language model's head, x @ W.T with W
# [vocab, hidden] (bench/kernels/matmul_bt.tile), vocabularies of odd size beside their
# padded neighbours. DIR/old holds mml_*_nk bundles of the compiler before (205cdf2: an odd
# output stride sends the launch to the generic variant), DIR/bench the same bundles from the
# l16 compiler; Triton (bench.py's tr_matmul, same tile, 3 stages, GROUP 8) and
# torch.nn.functional.linear (cuBLAS) in the same process. Outputs poisoned and checked against
# float64 first; 3 alternations, best median. python3 THIS DIR
import os, sys, torch, triton
from triton.testing import do_bench
sys.path.insert(0, "bench")
import bench as B
from tile_ctypes import Libtile, ptr, i64
import triton.language as tl
B.torch, B.triton, B.tl = torch, triton, tl
B.define_triton_matmul()
D = sys.argv[1]
# bundle sets, TAG=SUBDIR of D each (run 2: before=old l16=bench "l16 pred"=pred)
SETS = [a.split("=", 1) for a in sys.argv[2:]] or [("before", "old"), ("l16", "bench"),
                                                   ("l16 pred", "pred")]
lib = Libtile(os.path.join(D, "libtile.so")); lib.init()
st = lambda: torch.cuda.current_stream().cuda_stream
rows = []
SHAPES = ((4096, 768, 50257), (4096, 768, 50304), (8192, 4096, 32001), (8192, 4096, 32000))
TILES = {"f16": ((128, 256, 64, 8), (128, 128, 64, 8)), "f32": ((128, 256, 32, 8),)}
for t, tiles in TILES.items():
    dt = torch.float16 if t == "f16" else torch.float32
    for M, K, N in SHAPES:
        if t == "f32" and K == 4096:
            continue
        x = torch.rand(M, K, device="cuda", dtype=dt) * 2 - 1
        w = torch.rand(N, K, device="cuda", dtype=dt) * 2 - 1
        out = torch.empty(M, N, device="cuda", dtype=dt)
        ref = x.double() @ w.double().T
        tol = 2e-2 if t == "f16" else 1e-2
        flops = 2 * M * N * K
        for bm, bn, bk, nw in tiles:
            name = f"mml_{t}_nk_{bm}x{bn}x{bk}_w{nw}"
            args = [ptr(out.data_ptr()), ptr(x.data_ptr()), ptr(w.data_ptr()), i64(M), i64(N), i64(K),
                    i64(K), i64(K), i64(N)]
            fns = {tag: lib.kernel(os.path.join(D, sub, name + ".tlb"), "matmul_bt").bind(args, st())
                   for tag, sub in SETS if os.path.exists(os.path.join(D, sub, name + ".tlb"))}
            grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
            fns["triton"] = (lambda bm=bm, bn=bn, bk=bk, nw=nw, grid=grid: B.tr_matmul[grid](
                out, x, w, x, M, N, K, K, 1, 1, K, N, BM=bm, BN=bn, BK=bk, GROUP=8, EPI=False,
                num_warps=nw, num_stages=3))
            fns["cublas"] = lambda: torch.matmul(x, w.T, out=out)
            best, err = {}, {}
            for r in range(3):
                order = list(fns.items()); order = order[r:] + order[:r]
                for tag, f in order:
                    if r == 0:
                        out.fill_(float("nan")); f(); torch.cuda.synchronize()
                        err[tag] = ((out.double() - ref).abs().max() / ref.abs().max()).item()
                    ms = do_bench(f, warmup=25, rep=100, return_mode="median")
                    best[tag] = min(best.get(tag, ms), ms)
            tags = [tag for tag, _ in SETS] + ["triton", "cublas"]
            cells = " | ".join(f"{best[k] * 1e3:.1f} ({flops / best[k] / 1e9:.0f}){'' if err[k] < tol else ' BAD %.1e' % err[k]}"
                               for k in tags if k in best)
            a, b = tags[0], tags[1]
            line = f"| {t} {M}x{K}x{N} | {bm}x{bn}x{bk} w{nw} | {cells} | {best[a] / best[b]:.2f} | {best['triton'] / best[b]:.3f} |"
            rows.append(line); print(line, flush=True)
        del x, w, out, ref
        torch.cuda.empty_cache()
names = [tag for tag, _ in SETS]
print("\n| shape M x K x N | tile | " + " | ".join(f"{n} µs (TFLOP/s)" for n in names)
      + f" | Triton | cuBLAS (torch.matmul(x, w.T)) | {names[0]} ÷ {names[1]} | {names[1]} ÷ Triton speed |")
print("| --- | --- |" + " ---: |" * (len(names) + 4))
print("\n".join(rows))
