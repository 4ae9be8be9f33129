"""Session 44: TMA loops whose mbarrier polls carry a 10 ms suspend-time
hint (`hint`, this tree's tilec) against none (`nohint`, adefbe5's
tilec), the same tiles; and released slots (--slot-sync=mbarrier) with
the hint (`relh`) and without (`rel`, session 38's form); beside cuBLAS /
cuDNN / torch._scaled_mm: matmul f16 (examples/matmul.tile, `-p`:
--persistent), FP8 e4m3 (bench/kernels/matmul_f8.tile), attention
(examples/attention.tile, [B*H, S, D] f16, beside cuDNN's SDPA). Outputs
poisoned and checked against float64 first (bench/abtime.py), then best
of three alternated do_bench medians; summaries last: nohint / hint,
rel / relh and hint / relh per tile (> 1: the first is slower).

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS BUNDLE_DIR [PART]

PART: att, mm or all (the default)."""
import glob
import os
import sys

import torch

import tile
from abtime import check_then_time, sdpa_case

d = sys.argv[1]
part = sys.argv[2] if len(sys.argv) > 2 else "all"
rows = []
print("| case | system | µs | TFLOP/s |\n| --- | --- | ---: | ---: |", flush=True)


def emit(case, name, ms, flops):
    rows.append((case, name, ms * 1e3))
    print(f"| {case} | {name} | {ms * 1e3:.1f} | {flops / ms / 1e9:.0f} |", flush=True)


def checker(buf, ref, tol, rel=True):
    scale = ref.abs().max().item() if rel else 1.0

    def check(name, r):
        got = (r if isinstance(r, torch.Tensor) else buf).double()
        err = ((got - ref).abs().max() / scale).item()
        buf.fill_(float("nan"))
        return None if err < tol else f"err {err:.2e}"
    return check


def mm(dt, M, N, K):
    t = {"f16": torch.float16, "bf16": torch.bfloat16}[dt]
    a = torch.randn(M, K, device="cuda", dtype=t)
    b = torch.randn(K, N, device="cuda", dtype=t)
    c = torch.empty(M, N, device="cuda", dtype=t)
    ref = a.double() @ b.double()
    fns = {"cuBLAS": lambda: torch.matmul(a, b)}
    if not glob.glob(os.path.join(d, f"mm-*-{dt}-*.tlb")):
        return
    for p in sorted(glob.glob(os.path.join(d, f"mm-*-{dt}-*.tlb"))):
        k = tile.load(p).matmul
        fns[os.path.basename(p)[:-4]] = (lambda k=k: k(c, a, b, M, N, K, K, N, N))
    c.fill_(float("nan"))
    best = check_then_time(fns, checker(c, ref, 2e-3 if dt == "f16" else 1e-2))
    for name, ms in best.items():
        emit(f"mm {dt} {M}x{N}x{K}", name, ms, 2 * M * N * K)


def f8(n):
    f8t = torch.float8_e4m3fn
    a = (torch.rand(n, n, device="cuda") * 2 - 1).to(f8t)
    bs = (torch.rand(n, n, device="cuda") * 2 - 1).to(f8t)
    one = torch.ones((), device="cuda")
    out = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    if not glob.glob(os.path.join(d, "f8-*.tlb")):
        return
    ref = a.double() @ bs.double().t()
    fns = {"_scaled_mm": lambda: torch._scaled_mm(a, bs.t(), scale_a=one, scale_b=one,
                                                  out_dtype=torch.bfloat16)}
    for p in sorted(glob.glob(os.path.join(d, "f8-*.tlb"))):
        k = tile.load(p).matmul_f8
        fns[os.path.basename(p)[:-4]] = (lambda k=k: k(out, a, bs, n, n, n, n, n, n, 1.0))
    out.fill_(float("nan"))
    best = check_then_time(fns, checker(out, ref, 1e-2))
    for name, ms in best.items():
        emit(f"f8 {n}^3", name, ms, 2 * n ** 3)


def att(D, causal, S, B=4, H=32):
    tag = f"-D{D}{'-causal' if causal else ''}-"
    if not glob.glob(os.path.join(d, "att-*" + tag + "[0-9]*.tlb")):
        return
    q, k, v, o, ref, cudnn = sdpa_case(B, H, S, D, causal)
    fns = {"cuDNN": cudnn}
    for p in sorted(glob.glob(os.path.join(d, "att-*" + tag + "[0-9]*.tlb"))):
        kt = tile.load(p).attention
        fns[os.path.basename(p)[:-4]] = (
            lambda kt=kt: kt(o, q, k, v, B * H, S, S * D, D, D ** -0.5))
    o.fill_(float("nan"))
    best = check_then_time(fns, checker(o, ref, 2e-2, rel=False))
    flops = 4 * B * H * S * S * D // (2 if causal else 1)
    for name, ms in best.items():
        emit(f"att D{D}{' causal' if causal else ''} S{S}", name, ms, flops)




print(torch.cuda.get_device_name(), flush=True)
if part in ("att", "all"):
    for D, causal in ((64, False), (64, True), (128, False), (128, True)):
        att(D, causal, 4096)
if part in ("mm", "all"):
    for M, N, K in ((4096, 4096, 4096), (8192, 8192, 4096)):
        mm("f16", M, N, K)
    f8(8192)

by = {(c, n): us for c, n, us in rows}
for new, old in (("hint", "nohint"), ("relh", "rel"), ("relh", "hint")):
    print(f"\n| case | tile | {new} µs | {old} µs | {old} / {new} | reference µs |\n"
          "| --- | --- | ---: | ---: | ---: | ---: |")
    for (c, n), us in by.items():
        if f"-{new}-" not in n:
            continue
        other = n.replace(f"-{new}-", f"-{old}-")
        ref = [u for (c2, n2), u in by.items()
               if c2 == c and n2 in ("cuBLAS", "cuDNN", "_scaled_mm")]
        if (c, other) in by:
            print(f"| {c} | {n.split(f'-{new}-')[1]} | {us:.1f} | {by[(c, other)]:.1f} | "
                  f"{by[(c, other)] / us:.3f} | {ref[0] if ref else float('nan'):.1f} |")
