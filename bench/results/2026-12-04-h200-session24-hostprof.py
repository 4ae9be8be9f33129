"""Session 24: where the host time of a Tile compiled training step goes
(torch.compile default mode: inductor's wrapper calls each Tile operator
through torch's dispatcher): cProfile over 10 steps after 10 warm-up
steps, the top functions by own time and by cumulative time.

    TILE_LIBDIR=DIR python3 THIS BUNDLE_DIR [f32|bf16 [MODE]]"""
import cProfile, pstats, sys
sys.path.insert(0, "examples/torch")
import torch
import mlp_train as m
torch.backends.cuda.matmul.allow_tf32 = True
bd = sys.argv[1]
dt = sys.argv[2] if len(sys.argv) > 2 else "f32"
mode = sys.argv[3] if len(sys.argv) > 3 else "default"
class A: bundle_dir = bd; device = "cuda"
mlp, ce = m.load_kernels(A, dt)
ops = m.make_ops(mlp, ce, "hostprof")
M, D, H, C = m.SIZES["large"]
tdt = m.DTYPES[dt]
params = m.init_params(D, H, C, tdt, "cuda")
data = m.batches(M, D, C, 20, tdt, "cuda")
fn = torch.compile(lambda p, x, t: m.tile_loss(ops, p, x, t), fullgraph=True,
                   mode=None if mode == "default" else mode)
m.train(fn, params, data[:10], 0.05, torch.cuda.synchronize)
p = {k: torch.nn.Parameter(v.clone()) for k, v in params.items()}
pr = cProfile.Profile()
pr.enable()
for x, t in data[10:]:
    loss = fn(p, x, t)
    loss.backward()
    with torch.no_grad():
        for v in p.values():
            v -= 0.05 * v.grad
            v.grad = None
    loss.item()
pr.disable()
st = pstats.Stats(pr)
st.sort_stats("tottime").print_stats(30)
st.sort_stats("cumulative").print_stats(45)
