"""Session 39: attention (examples/attention.tile, [B*H, S, D] f16, B=4,
H=32) with its warpgroups taking turns at the two products (tilec
--pingpong: "pp"; with slots released through mbarriers: "rpp"; call 2's
variants built from patches: "ppw", the turn handed on after the
product's wait, "pp1", turns at the first product only) against the
default ("cta"), the same tiles, beside cuDNN's SDPA. Outputs poisoned
and checked against float64 first (bench/abtime.py), then best of three
alternated do_bench medians; a summary per tile last: cta time over each
mode's (> 1: the mode is faster).

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS BUNDLE_DIR [MODE...]

MODE: the modes beside cta to compare (default pp rpp)."""
import glob
import os
import sys

import tile
from abtime import check_then_time, sdpa_case

d = sys.argv[1]
MODES = sys.argv[2:] or ["pp", "rpp"]
rows = {}
print("| case | system | µs | TFLOP/s |\n| --- | --- | ---: | ---: |", flush=True)


def checker(buf, ref, tol):
    def check(name, r):
        got = (r if r is not None else buf).double()
        err = (got - ref).abs().max().item()
        buf.fill_(float("nan"))
        return None if err < tol else f"err {err:.2e}"
    return check


def att(D, causal, S, B=4, H=32):
    tag = f"-D{D}{'-causal' if causal else ''}-"
    paths = sorted(glob.glob(os.path.join(d, "att-*" + tag + "[0-9]*.tlb")))
    if not paths:
        return
    q, k, v, o, ref, cudnn = sdpa_case(B, H, S, D, causal)
    fns = {"cuDNN": cudnn}
    for p in paths:
        kt = tile.load(p).attention
        fns[os.path.basename(p)[:-4]] = (
            lambda kt=kt: kt(o, q, k, v, B * H, S, S * D, D, D ** -0.5))
    o.fill_(float("nan"))
    best = check_then_time(fns, checker(o, ref, 2e-2))
    flops = 4 * B * H * S * S * D // (2 if causal else 1)
    case = f"att D{D}{' causal' if causal else ''} S{S}"
    for name, ms in best.items():
        rows[(case, name)] = ms * 1e3
        print(f"| {case} | {name} | {ms * 1e3:.1f} | {flops / ms / 1e9:.0f} |", flush=True)


import torch  # noqa: E402
print(torch.cuda.get_device_name(), flush=True)
for D, causal in ((64, False), (64, True), (128, False), (128, True)):
    att(D, causal, 4096)
att(64, False, 1000)
att(128, False, 1000)

print("\n| case | tile | cuDNN µs | cta µs | " + " | ".join(f"{m} µs" for m in MODES) + " | " +
      " | ".join(f"cta / {m}" for m in MODES) + " |\n| --- | --- | ---: | ---: | " +
      " | ".join("---:" for _ in MODES * 2) + " |")
for (case, name), us in rows.items():
    if not name.startswith("att-cta-"):
        continue
    t = name[len("att-cta-"):]
    got = [rows.get((case, f"att-{m}-" + t), float("nan")) for m in MODES]
    ref = rows.get((case, "cuDNN"), float("nan"))
    tl = t.split("-", 1)[1] if "-" in t else t
    print(f"| {case} | {tl} | {ref:.1f} | {us:.1f} | " + " | ".join(f"{g:.1f}" for g in got) +
          " | " + " | ".join(f"{us / g:.3f}" for g in got) + " |")
