"""abvariants.py — variants of examples/matmul.tile and examples/attention.tile
(the same tiles built with different tilec options) beside cuBLAS /
cuDNN and Triton (bench.py's kernels at the same tile), in one process:
every output poisoned and checked against float64 first, then best of
three alternated do_bench medians (bench/abtime.py).

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 bench/abvariants.py BUNDLES [PART] [BASE]

BUNDLES holds mm-VARIANT-f16-BMxBNxBK-wW-sS.tlb (examples/matmul.tile,
T=f16) and att-VARIANT-DD[-causal]-BMxBN-sS.tlb (examples/attention.tile,
8 warps), as bench/abbuild.sh builds them; PART is att, mm or all (the default). Matmul runs at 4096^3,
8192x8192x4096 and the ragged 4000^3 and 4104^3 (16-byte rows: the
aligned entries, TMA); attention ([B*H, S, D] f16, B=4, H=32) at S =
4096 and 1000, D = 64 and 128, causal and not (Triton's kernel, bench.py
step attention's, is not causal). The table last: per case and tile,
each variant's µs and BASE's (default cta) over it (> 1: the variant
is faster), beside cuBLAS / cuDNN and Triton."""
import glob
import os
import sys

import torch
import triton

import bench
import tile
from abtime import check_then_time, mm_case, mm_check, sdpa_case

d = sys.argv[1]
part = sys.argv[2] if len(sys.argv) > 2 else "all"
base = sys.argv[3] if len(sys.argv) > 3 else "cta"
rows = {}   # (case, system) -> µs


def bundles(pattern):
    """{(variant, tile): path} of the bundles matching pattern."""
    out = {}
    for p in sorted(glob.glob(os.path.join(d, pattern))):
        name = os.path.basename(p)[:-4].split("-")
        at = next(i for i, x in enumerate(name) if x[:1].isdigit() and "x" in x)
        out[(name[1], "-".join(name[at:]))] = p
    return out


def record(case, best):
    for name, ms in best.items():
        rows[(case, name)] = ms * 1e3
        print(f"| {case} | {name} | {ms * 1e3:.1f} |", flush=True)


def mm(M, N, K):
    found = bundles("mm-*-f16-*.tlb")
    if not found:
        return
    a, b, c, ref, scale, cublas = mm_case(M, N, K)
    fns = {"cuBLAS": cublas}
    tiles = sorted({t for _, t in found})
    for t in tiles:   # Triton at each tile: BMxBNxBK-wW-sS
        bm, bn, bk = (int(x) for x in t.split("-")[0].split("x"))
        w, s = int(t.split("-")[1][1:]), int(t.split("-")[2][1:])
        grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
        fns[f"triton:{t}"] = (lambda grid=grid, bm=bm, bn=bn, bk=bk, w=w, s=s: bench.tr_matmul[grid](
            c, a, b, c, M, N, K, K, 1, N, 1, N, BM=bm, BN=bn, BK=bk, GROUP=8, EPI=False,
            num_warps=w, num_stages=s))
    for (v, t), p in found.items():
        k = tile.load(p).matmul
        fns[f"{v}:{t}"] = (lambda k=k: k(c, a, b, M, N, K, K, N, N))
    c.fill_(float("nan"))
    record(f"mm f16 {M}x{N}x{K}", check_then_time(fns, mm_check(c, ref, scale)))
    del a, b, c, ref


def att(D, causal, S, B=4, H=32):
    tag = f"att-*-D{D}{'-causal' if causal else ''}-[0-9]*.tlb"
    found = bundles(tag)
    if not found:
        return
    q, k, v, o, ref, cudnn = sdpa_case(B, H, S, D, causal)
    fns = {"cuDNN": cudnn}
    scale = D ** -0.5
    qk_scale = scale * 1.4426950408889634
    for t in sorted({t for _, t in found}) if not causal else ():
        bm, bn = (int(x) for x in t.split("-")[0].split("x"))
        s = int(t.split("-")[1][1:])
        grid = (triton.cdiv(S, bm), B * H)
        fns[f"triton:{t}"] = (lambda grid=grid, bm=bm, bn=bn, s=s: bench.tr_attention[grid](
            o, q, k, v, S, S * D, D, qk_scale, D=D, BM=bm, BN=bn, num_warps=8, num_stages=s))
    for (var, t), p in found.items():
        kt = tile.load(p).attention
        fns[f"{var}:{t}"] = (lambda kt=kt: kt(o, q, k, v, B * H, S, S * D, D, scale))
    o.fill_(float("nan"))

    def check(name, r):
        got = (r if isinstance(r, torch.Tensor) else o).double()
        err = (got - ref).abs().max().item()
        o.fill_(float("nan"))
        return None if err < 2e-2 else f"err {err:.2e}"
    record(f"att D{D}{' causal' if causal else ''} S{S}", check_then_time(fns, check))
    del q, k, v, o, ref


print(torch.cuda.get_device_name(), flush=True)
print("| case | system | µs |\n| --- | --- | ---: |", flush=True)
bench.setup_torch()   # bench.py's globals (torch, triton, tl) and its Triton kernels
bench.define_triton_matmul()
bench.define_triton_attention()
if part in ("att", "all"):
    for S in (4096, 1000):
        for D in (64, 128):
            for causal in (False, True):
                att(D, causal, S)
if part in ("mm", "all"):
    for M, N, K in ((4096, 4096, 4096), (8192, 8192, 4096), (4000, 4000, 4000),
                    (4104, 4104, 4104)):
        mm(M, N, K)

variants = sorted({n.split(":")[0] for _, n in rows if ":" in n} - {"triton", base})
print(f"\n| case | tile | reference | triton | {base} | " +
      " | ".join(f"{v} | {base} / {v}" for v in variants) + " |\n| --- | --- |" +
      " ---: |" * (3 + 2 * len(variants)))
for case in dict.fromkeys(c for c, _ in rows):
    ref = next((u for (c, n), u in rows.items() if c == case and ":" not in n), float("nan"))
    for t in dict.fromkeys(n.split(":")[1] for c, n in rows if c == case and
                           n.startswith(base + ":")):
        b_us = rows[(case, f"{base}:{t}")]
        tr = rows.get((case, f"triton:{t}"), float("nan"))
        cells = []
        for v in variants:
            us = rows.get((case, f"{v}:{t}"), float("nan"))
            cells += [f"{us:.1f}", f"{b_us / us:.3f}"]
        print(f"| {case} | {t} | {ref:.1f} | {tr:.1f} | {b_us:.1f} | " + " | ".join(cells) + " |")
