"""Session 24: examples/torch/mlp.tile's forward products (linear,
linear_gelu; f32 storage, tf32 wgmma) at the f32 training test's shapes,
each configuration of a bundle of them with BM 128 or 256, BN 128 or 256,
BK 32, 4 or 8 warps, 3 or 4 stages (/tmp/lin.tile: mlp.tile's two kernels
with that tuning space), beside torch (cuBLAS, TF32) in the same process:
outputs checked against torch first (fresh inputs, poisoned outputs),
then CUDA-event medians of 20 launches after 5, 3 rounds alternated; the
best round per configuration, µs.

    TILE_LIBDIR=DIR python3 THIS lin.tlb"""
import os, statistics, sys
sys.path.insert(0, "python")
import torch
import tile
torch.backends.cuda.matmul.allow_tf32 = True
mod = tile.load(sys.argv[1])
shapes = [("linear_gelu", 4096, 4096, 1024), ("linear", 4096, 1024, 4096),
          ("linear", 4096, 8192, 1024)]


def timed(f, reps=20):
    for _ in range(5):
        f()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
          for _ in range(reps)]
    for a, b in ev:
        a.record(); f(); b.record()
    torch.cuda.synchronize()
    return statistics.median(a.elapsed_time(b) for a, b in ev) * 1e3


rows = []
for name, M, N, K in shapes:
    k = getattr(mod, name)
    a = torch.randn(M, K, device="cuda")
    w = torch.randn(K, N, device="cuda") / K ** 0.5
    bias = torch.randn(N, device="cuda")
    ref = a @ w + bias
    if name == "linear_gelu":
        ref = torch.nn.functional.gelu(ref)
    outs = [torch.full((M, N), float("nan"), device="cuda") for _ in range(2)]
    args = (outs if name == "linear_gelu" else outs[:1]) + [a, w, bias, M, N, K]
    cfgs = [c for c in k.configs if c.get("BK") == "32"]
    best = {}
    for c in cfgs:
        kw = {key: int(c[key]) for key in ("BM", "BN", "warps", "stages")}
        try:
            k(*args, **kw)
        except Exception as e:          # noqa: BLE001 -- a configuration not built
            print(name, kw, "skipped:", type(e).__name__, e)
            continue
        torch.cuda.synchronize()
        err = ((outs[0] - ref).abs().max() / ref.abs().max()).item()
        best[str(kw)] = [err, float("inf")]
    tref = float("inf")
    for _ in range(3):
        tref = min(tref, timed(lambda: torch.addmm(bias, a, w)))
        for c in cfgs:
            kw = {key: int(c[key]) for key in ("BM", "BN", "warps", "stages")}
            if str(kw) in best:
                best[str(kw)][1] = min(best[str(kw)][1], timed(lambda: k(*args, **kw)))
    for kw, (err, t) in sorted(best.items(), key=lambda x: x[1][1]):
        rows.append(f"{name:<12}{M}x{N}x{K:<6}{kw:<52}{t:9.1f}  torch.addmm {tref:7.1f}  "
                    f"ratio {tref / t:5.2f}  max rel err {err:.1e}")
print("\n".join(rows))
