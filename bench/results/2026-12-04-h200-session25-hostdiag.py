"""Session 25: why a Tile training step under torch.compile's default mode
is host-bound (session 24: 2.9-3.2 ms a step, 1.93 ms of host time in
backward()). Three looks, one process:

  1. synchronizing CUDA calls during one compiled step
     (torch.cuda.set_sync_debug_mode("warn"), warnings recorded);
  2. host time per call of one Tile op at a tiny size, by path: the
     kernel launched directly, the op's eager fast path, the dispatcher
     (opdef), torch.ops.NS.NAME.default, and inside a torch.compile'd
     function of 20 calls (default mode);
  3. the profiler's CPU-side table of 2 compiled default steps.

    TILE_LIBDIR=DIR python3 THIS BUNDLE_DIR"""
import importlib.util, statistics, sys, time, warnings
sys.path.insert(0, "python")
import torch
_spec = importlib.util.spec_from_file_location("mlp_train", "examples/torch/mlp_train.py")
m = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(m)
torch.backends.cuda.matmul.allow_tf32 = True


class A:
    bundle_dir = sys.argv[1]
    device = "cuda"


mlp, ce = m.load_kernels(A, "f32")
ops = m.make_ops(mlp, ce, "diag")
M, D, H, C = m.SIZES["large"]
params = m.init_params(D, H, C, torch.float32, "cuda")
data = m.batches(M, D, C, 12, torch.float32, "cuda")
sync = torch.cuda.synchronize
fn = torch.compile(lambda p, x, t: m.tile_loss(ops, p, x, t), fullgraph=True)
p = {k: torch.nn.Parameter(v.clone()) for k, v in params.items()}


def step(x, t):
    loss = fn(p, x, t)
    loss.backward()
    with torch.no_grad():
        for v in p.values():
            v -= 0.05 * v.grad
            v.grad = None
    return loss


for x, t in data[:8]:
    step(x, t)
sync()

# 1. synchronizing calls in one step
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.cuda.set_sync_debug_mode("warn")
    step(*data[8])
    torch.cuda.set_sync_debug_mode(0)
sync()
print(f"== 1. synchronizing calls in one compiled default step: {len(caught)}")
import traceback
for w in caught[:6]:
    print("  ", str(w.message)[:200], f"({w.filename}:{w.lineno})")

# 2. host time per call of layernorm at 64 x 128, by path
x = torch.randn(64, 128, device="cuda")
w = torch.randn(128, device="cuda")
b = torch.randn(128, device="cuda")
ln = ops["ln"]
out = torch.empty_like(x)
mean = torch.empty(64, device="cuda")
rstd = torch.empty(64, device="cuda")
k = mlp.layernorm_fwd
ns_op = getattr(torch.ops.diag, "layernorm").default


def per_call(f, n=400):
    for _ in range(20):
        f()
    sync()
    best = []
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(n):
            f()
        t1 = time.perf_counter()
        sync()
        best.append((t1 - t0) / n * 1e6)
    return min(best)


def ten(x, w, b):
    for _ in range(20):
        x = ln(x, w, b, 1e-5)[0]
    return x


cten = torch.compile(ten, fullgraph=True)
print("== 2. host us per call, layernorm 64 x 128")
rows = [("kernel launched directly", lambda: k(out, mean, rstd, x, w, b, 64, 128, 1e-5)),
        ("op, eager fast path", lambda: ln(x, w, b, 1e-5)),
        ("op.opdef (dispatcher)", lambda: ln.opdef(x, w, b, 1e-5)),
        ("torch.ops.diag.layernorm.default", lambda: ns_op(x, w, b, 1e-5)),
        ("torch.compile, 20 calls / 20", None)]
for name, f in rows:
    if f is None:
        us = per_call(lambda: cten(x, w, b), n=50) / 20
    else:
        us = per_call(f)
    print(f"  {name:<36}{us:8.1f}")
wg = w.clone().requires_grad_()
print(f"  {'op.opdef, an input requires grad':<36}{per_call(lambda: ln.opdef(x, wg, b, 1e-5)):8.1f}")
print(f"  {'op fast path, input requires grad':<36}{per_call(lambda: ln(x, wg, b, 1e-5)):8.1f}")

# 3. the profiler's host table of 2 compiled default steps
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                        torch.profiler.ProfilerActivity.CUDA]) as prof:
    for x, t in data[9:11]:
        step(x, t)
    sync()
print("== 3. 2 compiled default steps, by self CPU time")
print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=30,
                                max_name_column_width=70))
