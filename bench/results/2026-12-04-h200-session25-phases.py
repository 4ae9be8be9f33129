"""Session 25: session 24's -phases.py without its profile, the tile
package taken from the directory TILE_PY names (default python/), so that
two versions of tile.torch run the same example: where a training step of
examples/torch/mlp_train.py spends its wall-clock time, by phase (host
time of the forward call, of backward(), of the SGD loop, then the wait
for the GPU), for torch eager, Tile eager, Tile compiled and torch
compiled, median of 20 steps after 10.

    TILE_PY=DIR TILE_LIBDIR=DIR python3 THIS BUNDLE_DIR [f32|bf16 [MODE [MLP_TRAIN.py]]]"""
import importlib.util, os, statistics, sys, time
sys.path.insert(0, os.environ.get("TILE_PY", "python"))
import torch
_path = sys.argv[4] if len(sys.argv) > 4 else "examples/torch/mlp_train.py"
_spec = importlib.util.spec_from_file_location("mlp_train", _path)
m = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(m)
torch.backends.cuda.matmul.allow_tf32 = True
bd = sys.argv[1]
dt = sys.argv[2] if len(sys.argv) > 2 else "f32"
class A: bundle_dir = bd; device = "cuda"
mlp, ce = m.load_kernels(A, dt)
ops = m.make_ops(mlp, ce, "phases")
M, D, H, C = m.SIZES["large"]
tdt = m.DTYPES[dt]
params = m.init_params(D, H, C, tdt, "cuda")
data = m.batches(M, D, C, 30, tdt, "cuda")
mode = sys.argv[3] if len(sys.argv) > 3 else "reduce-overhead"
mode = None if mode == "default" else mode
fns = {"torch eager": m.torch_loss,
       "tile eager": lambda p, x, t: m.tile_loss(ops, p, x, t),
       "tile compiled": torch.compile(lambda p, x, t: m.tile_loss(ops, p, x, t),
                                      fullgraph=True, mode=mode),
       "torch compiled": torch.compile(m.torch_loss, fullgraph=True, mode=mode)}
sync = torch.cuda.synchronize
print(f"{'run':<16}{'fwd host':>10}{'bwd host':>10}{'sgd host':>10}{'wait':>10}{'step':>10}  (ms, median of 20)")
for name, fn in fns.items():
    p = {k: torch.nn.Parameter(v.clone()) for k, v in params.items()}
    rows = []
    for i, (x, t) in enumerate(data):
        sync(); t0 = time.perf_counter()
        loss = fn(p, x, t); t1 = time.perf_counter()
        loss.backward(); t2 = time.perf_counter()
        with torch.no_grad():
            for v in p.values():
                v -= 0.05 * v.grad
                v.grad = None
        t3 = time.perf_counter()
        loss.item(); sync(); t4 = time.perf_counter()
        if i >= 10:
            rows.append((t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0))
    med = [statistics.median(c) * 1e3 for c in zip(*rows)]
    print(f"{name:<16}" + "".join(f"{v:>10.3f}" for v in med))
import tile.torch
print("tile.torch from", tile.torch.__file__)
