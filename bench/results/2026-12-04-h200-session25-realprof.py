"""Session 25: where tile.torch's _real spends its host time on the GPU
machine (the eager fast path of a Tile op costs 56 us a call against 11.6
for the kernel launched directly, -run1-hostdiag.txt). Times each step
of _real on its own, then cProfiles 5000 fast-path calls. TILE_PY: the
directory of the tile package (default python/).

    TILE_LIBDIR=DIR python3 THIS BUNDLE_DIR"""
import cProfile, importlib.util, os, pstats, sys, time, types
sys.path.insert(0, os.environ.get("TILE_PY", "python"))
import torch
import tile.torch as tt
_spec = importlib.util.spec_from_file_location("mlp_train", "examples/torch/mlp_train.py")
m = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(m)


class A:
    bundle_dir = sys.argv[1]
    device = "cuda"


mlp, ce = m.load_kernels(A, "f32")
ops = m.make_ops(mlp, ce, "rp")
ln = ops["ln"]
x = torch.randn(64, 128, device="cuda")
w = torch.randn(128, device="cuda")
b = torch.randn(128, device="cuda")
out, mean, rstd = torch.empty_like(x), torch.empty(64, device="cuda"), torch.empty(64, device="cuda")
k = mlp.layernorm_fwd
dev = x.device
args = (x, w, b, 1e-5)
ns = types.SimpleNamespace(x=x, w=w, b=b, eps=1e-5)


def per(f, n=5000):
    for _ in range(200):
        f()
    torch.cuda.synchronize()
    best = 1e9
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        best = min(best, (time.perf_counter() - t0) / n * 1e6)
        torch.cuda.synchronize()
    return best


rows = [
    ("kernel launched directly", lambda: k(out, mean, rstd, x, w, b, 64, 128, 1e-5)),
    ("op fast path (all of it)", lambda: ln(*args)),
    ("op._real", lambda: ln._real(*args)),
    ("op._real_generic (if any)", lambda: getattr(ln, "_real_generic", ln._real)(*args)),
    ("_check_inputs", lambda: ln._check_inputs(args)),
    ("3 x contiguous", lambda: (x.contiguous(), w.contiguous(), b.contiguous())),
    ("_output_shapes", lambda: ln._output_shapes(ns)),
    ("torch.empty x3 (device obj)", lambda: (torch.empty((64, 128), dtype=torch.float32, device=dev),
                                            torch.empty((64,), dtype=torch.float32, device=dev),
                                            torch.empty((64,), dtype=torch.float32, device=dev))),
    ("_kernel_for", lambda: ln._kernel_for(dev)),
    ("_on_device", lambda: tt._on_device(dev)),
    ("torch.cuda.current_device()", torch.cuda.current_device),
    ("x.device", lambda: x.device),
    ("_dispatch_needed", tt._dispatch_needed),
    ("torch.cuda.current_stream()", torch.cuda.current_stream),
]
print("host us per call, layernorm 64 x 128 (best of 3 x 5000)")
for name, f in rows:
    print(f"  {name:<34}{per(f):8.2f}")
pr = cProfile.Profile()
pr.enable()
for _ in range(5000):
    ln(*args)
pr.disable()
torch.cuda.synchronize()
pstats.Stats(pr).sort_stats("tottime").print_stats(25)
