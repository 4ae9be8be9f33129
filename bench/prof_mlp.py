"""Where a Tile training step of examples/torch/mlp_train.py spends its GPU
time: torch.profiler over 5 steps after 10 warm-up (tuning) steps; the
top kernels by total CUDA time, Tile's and torch's.

    TILE_LIBDIR=build-gpu python3 bench/prof_mlp.py [BUNDLES]

BUNDLES: the directory of scripts/gpu-python.sh's xz-compressed bundles
(default build-gpu/torch)."""
import os, sys, subprocess
sys.path.insert(0, "examples/torch")   # run from the repository root, TILE_LIBDIR=build-gpu
import torch
import mlp_train as m
torch.backends.cuda.matmul.allow_tf32 = True
bd = "/tmp/tile-torch-bundles"
os.makedirs(bd, exist_ok=True)
for b in ("mlp-f32", "cross_entropy"):
    src = sys.argv[1] if len(sys.argv) > 1 else "build-gpu/torch"
    subprocess.run(f"xz -dc {src}/{b}.tlb.xz > {bd}/{b}.tlb", shell=True, check=True)
class A: bundle_dir = bd; device = "cuda"
mlp, ce = m.load_kernels(A, "f32")
ops = m.make_ops(mlp, ce, "prof")
M, D, H, C = m.SIZES["large"]
params = m.init_params(D, H, C, torch.float32, "cuda")
data = m.batches(M, D, C, 15, torch.float32, "cuda")
for name, fn in (("tile", lambda p, x, t: m.tile_loss(ops, p, x, t)), ("torch", m.torch_loss)):
    m.train(fn, params, data[:10], 0.05, torch.cuda.synchronize)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        m.train(fn, params, data[10:], 0.05, torch.cuda.synchronize)
    print(f"=== {name}: 5 steps")
    print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=14, max_name_column_width=60))
