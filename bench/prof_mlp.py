"""Where a Tile training step of examples/torch/mlp_train.py spends its GPU
time: torch.profiler over 5 steps after 10 warm-up (tuning) steps; the
top kernels by total CUDA time, Tile's and torch's. Then, with tiny
shapes (so the GPU waits for the host), the host time per call of a
tile.torch operator (as called: the eager fast path; and through
torch's dispatcher, opdef), of its kernel alone and of torch's addmm.

    TILE_LIBDIR=build-gpu python3 bench/prof_mlp.py [BUNDLES [DTYPE]]

BUNDLES: the directory of scripts/gpu-python.sh's xz-compressed bundles
(default build-gpu/torch); DTYPE: f32 (default) or bf16."""
import os, sys, subprocess, time
sys.path.insert(0, "examples/torch")   # run from the repository root, TILE_LIBDIR=build-gpu
import torch
import mlp_train as m
torch.backends.cuda.matmul.allow_tf32 = True
src = sys.argv[1] if len(sys.argv) > 1 else "build-gpu/torch"
dt = sys.argv[2] if len(sys.argv) > 2 else "f32"
bd = "/tmp/tile-torch-bundles"
os.makedirs(bd, exist_ok=True)
for b in (f"mlp-{dt}.tlb", m.xent_bundle(dt)):
    subprocess.run(f"xz -dc {src}/{b}.xz > {bd}/{b}", shell=True, check=True)
class A: bundle_dir = bd; device = "cuda"
mlp, ce = m.load_kernels(A, dt)
ops = m.make_ops(mlp, ce, "prof")
M, D, H, C = m.SIZES["large"]
tdt = m.DTYPES[dt]
params = m.init_params(D, H, C, tdt, "cuda")
data = m.batches(M, D, C, 15, tdt, "cuda")
for name, fn in (("tile", lambda p, x, t: m.tile_loss(ops, p, x, t)), ("torch", m.torch_loss)):
    m.train(fn, params, data[:10], 0.05, torch.cuda.synchronize)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        m.train(fn, params, data[10:], 0.05, torch.cuda.synchronize)
    print(f"=== {name}: 5 steps, {dt}")
    print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=16, max_name_column_width=60))


def host_us(f, n=2000, rounds=5):
    """Host microseconds per call of f: the least of `rounds` means over n
    calls, after 50 (one mean of 500 moved by 2x between runs)."""
    for _ in range(50):
        f()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        best = min(best, (time.perf_counter() - t0) / n * 1e6)
        torch.cuda.synchronize()
    return best


x, w = (torch.randn(64, 64, device="cuda", dtype=tdt) for _ in range(2))
b, c = torch.randn(64, device="cuda", dtype=tdt), torch.empty(64, 64, device="cuda", dtype=tdt)
xr = x.clone().requires_grad_()
lin = ops["lin"]
print(f"=== host time per call, 64x64x64 {dt}")
for what, f in (("kernel mlp.linear(...)", lambda: mlp.linear(c, x, w, b, 64, 64, 64)),
                ("TileOp._real", lambda: lin._real(x, w, b)),
                ("TileOp (custom op, no grad)", lambda: lin(x, w, b)),
                ("TileOp (custom op, input requires grad)", lambda: lin(xr, w, b)),
                ("TileOp.opdef (dispatcher, no grad)", lambda: lin.opdef(x, w, b)),
                ("TileOp.opdef (dispatcher, requires grad)", lambda: lin.opdef(xr, w, b)),
                ("torch.addmm(b, x, w)", lambda: torch.addmm(b, x, w)),
                ("torch.addmm, input requires grad", lambda: torch.addmm(b, xr, w))):
    print(f"{what:44s} {host_us(f):8.1f} us/call (host)")
