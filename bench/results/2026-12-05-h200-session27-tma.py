"""Session 27 (prepared; no GPU was lent in session 27): TMA copies
(tilec --tma) against cp.async rings, in examples/matmul.tile and in
session 25's persistent matmul (-matmul_pers.tile), at the same tiles,
beside cuBLAS. Every bundle's output is poisoned and checked against
float64 first; then do_bench medians, three rounds alternated, best of
three. Which entries of a --tma bundle copy by TMA, `tilec --stats`
says where the bundles are built (the aligned entries of these tiles:
both operands).

Bundles (built where tilec runs, into BUNDLE_DIR; T = f16, GROUP 8):
  mm-BMxBNxBK-wW-sS.tlb       tilec --arch=sm_90a -DBM=.. -DBN=.. -DBK=.. -Dwarps=.. -Dstages=.. examples/matmul.tile
  mm-tma-BMxBNxBK-wW-sS.tlb   the same with --tma
  pm-BMxBNxBK-wW-sS.tlb       ... bench/results/2026-12-04-h200-session25-matmul_pers.tile
  pm-tma-BMxBNxBK-wW-sS.tlb   the same with --tma
  att-D64.tlb, att-D64-causal.tlb, att-D128..., and att-tma-...: below

    TILE_LIBDIR=DIR PYTHONPATH=python python3 THIS BUNDLE_DIR"""
import os
import sys

import torch
from triton.testing import do_bench

import tile

d = sys.argv[1]
SMS = torch.cuda.get_device_properties(0).multi_processor_count
TILES = [(128, 256, 64, 8, 3), (128, 128, 64, 8, 4)]
SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (4104, 4104, 4104), (4093, 4096, 4096),
          (4096, 1024, 4096), (2048, 2048, 2048)]


def bundle(kind, t):
    bm, bn, bk, w, s = t
    path = os.path.join(d, f"{kind}-{bm}x{bn}x{bk}-w{w}-s{s}.tlb")
    return path if os.path.exists(path) else None


rows = []
for M, N, K in SHAPES:
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    ref = a.double() @ b.double()
    scale = ref.abs().max().item()
    fns = {"cuBLAS": lambda: torch.matmul(a, b)}
    for t in TILES:
        bm, bn, bk, w, s = t
        name = f"{bm}x{bn}x{bk} w{w} s{s}"
        nt = -(-M // bm) * -(-N // bn)
        for kind in ("mm", "mm-tma"):
            p = bundle(kind, t)
            if p:
                k = tile.load(p).matmul
                fns[f"{kind} {name}"] = (lambda k=k: k(c, a, b, M, N, K, K, N, N))
        for kind in ("pm", "pm-tma"):
            p = bundle(kind, t)
            if p:
                k = tile.load(p).matmul_pers
                fns[f"{kind} {name}"] = (lambda k=k, P=min(SMS, nt): k(c, a, b, M, N, K, K, N,
                                                                      N, P))
    best = {}
    for v, f in fns.items():
        c.fill_(float("nan"))
        r = f()
        torch.cuda.synchronize()
        got = r if isinstance(r, torch.Tensor) else c
        err = ((got.double() - ref).abs().max() / scale).item()
        if not err < 2e-3:
            print(f"{M}x{N}x{K} {v}: WRONG, rel err {err:.2e}", flush=True)
            continue
        best[v] = float("inf")
    for _ in range(3):
        for v in best:
            best[v] = min(best[v], do_bench(fns[v], warmup=25, rep=200, return_mode="median"))
    for v, ms in best.items():
        rows.append((f"{M}x{N}x{K}", v, ms * 1e3, 2 * M * N * K / ms / 1e9))
    del a, b, c, ref
# Attention forward (examples/attention.tile, f16, B=4 H=32 S=4096): k and
# v copied by TMA as 3-D maps (the head a dimension) against cp.async, and
# cuDNN's SDPA. Bundles att-D{64,128}[-causal].tlb and att-tma-..., built
# with -DD=.. [-DCAUSAL=true] -DBM=128 -DBN=64 -Dwarps=8 -Dstages=2.
from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: E402

B, H, S = 4, 32, 4096
for D in (64, 128):
    for causal in (False, True):
        tag = f"D{D}{'-causal' if causal else ''}"
        q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.float16) for _ in range(3))
        o = torch.empty_like(q)
        with sdpa_kernel(SDPBackend.MATH):
            ref = torch.nn.functional.scaled_dot_product_attention(
                q.float(), k.float(), v.float(), is_causal=causal).double()

        def cudnn():
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
        fns = {"cuDNN SDPA": cudnn}
        for kind in ("att", "att-tma"):
            path = os.path.join(d, f"{kind}-{tag}.tlb")
            if os.path.exists(path):
                kt = tile.load(path).attention
                fns[kind] = (lambda kt=kt: kt(o, q, k, v, B * H, S, S * D, D, D ** -0.5))
        best = {}
        for name, f in fns.items():
            o.fill_(float("nan"))
            r = f()
            torch.cuda.synchronize()
            got = (r if isinstance(r, torch.Tensor) else o).double()
            err = (got - ref).abs().max().item()
            if not err < 2e-2:
                print(f"attention {tag} {name}: WRONG, max abs err {err:.2e}", flush=True)
                continue
            best[name] = float("inf")
        for _ in range(3):
            for name in best:
                best[name] = min(best[name], do_bench(fns[name], warmup=25, rep=200,
                                                      return_mode="median"))
        flops = 4 * B * H * S * S * D // (2 if causal else 1)
        for name, ms in best.items():
            rows.append((f"attention {tag}", name, ms * 1e3, flops / ms / 1e9))
        del q, k, v, o, ref
print("| shape | system | µs | TFLOP/s |\n| --- | --- | ---: | ---: |")
for r in rows:
    print(f"| {r[0]} | {r[1]} | {r[2]:.1f} | {r[3]:.0f} |")
