#!/usr/bin/env python3
"""Training a transformer MLP block whose every kernel is Tile, through
tile.torch custom operators, against the same model in pure PyTorch.

Model (x [M, D] -> logits [M, C], targets t [M]):
    y = layernorm(x; ln_w, ln_b)            Tile layernorm_fwd / layernorm_bwd
    u = gelu(y @ w1 + b1)                   Tile linear_gelu (bias + GELU in the
                                            matmul epilogue), gelu_bwd
    r = x + u @ w2 + b2                     Tile linear
    logits = r @ wo + bo                    Tile linear
    loss = mean cross_entropy(logits, t)    Tile cross_entropy_fwd (loss and
                                            logsumexp, one read of the logits),
                                            cross_entropy_bwd_dbias (the
                                            gradient from them, times the
                                            upstream one, and its column sums)
The linears' input and weight gradients are Tile products with transposed
operands (matmul_strided). The kernels that write the logits', GELU's and
layernorm's gradients also write their column sums by blocks of rows
(cross_entropy_bwd_dbias, gelu_bwd, layernorm_bwd), so the bias and
layernorm-weight gradients are torch sums of a few hundred partial rows
instead of reads of the whole gradients (b2's, of a gradient no Tile
kernel writes, is a torch column sum); the logits' linear and the loss
are one autograd.Function (HeadLoss), whose backward has the loss
kernel's sums for the linear's bias. Cross-entropy reads the logits in
the model's dtype and computes in f32 (the PyTorch model converts them to
f32 first, as usual). Kernels: examples/torch/mlp.tile,
examples/cross_entropy.tile.

Runs, from the same initial weights and batches, SGD for --steps steps:
torch eager (the reference), Tile eager, Tile under
torch.compile(fullgraph=True) (and torch.compile of the PyTorch model, for
timing); then checks that every step's loss matches the reference within
tolerance, that torch.compile saw no graph break, and (on CUDA) that a
Tile op and the Tile forward replay correctly from a captured CUDA graph.
Prints a table (final loss, largest loss difference, time per step) and
PASS or FAIL; exit status 0 on PASS.

    python3 examples/torch/mlp_train.py --device cpu --size tiny --steps 3
    python3 examples/torch/mlp_train.py --device cuda --size large   # the H200

On CUDA the kernels come from tile.compile (needs tilec: TILEC) or, with
--bundle-dir DIR, from DIR/mlp-<dtype>.tlb and DIR/cross_entropy.tlb (f32;
DIR/cross_entropy-<dtype>.tlb for bf16 or f16, built with -DT=<dtype>;
scripts/gpu-python.sh prepare builds f32's and bf16's); on the CPU they run
in the interpreter (slow: use --size tiny).

--compile-mode MODE is torch.compile's mode for both compiled runs (default:
torch's default; "reduce-overhead" replays each step's graph as a CUDA
graph, which takes the host's launch costs off every step).
"""

import argparse
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
try:                          # an installed package (the wheel) first
    import tile
except ImportError:           # else the source tree's (PYTHONPATH unset)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))
    import tile
import tile.torch as tt       # noqa: E402

# Sizes: (M rows per batch, D model width, H hidden width, C classes).
SIZES = {"tiny": (8, 16, 32, 16), "small": (64, 128, 512, 256),
         "large": (4096, 1024, 4096, 8192)}
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}


# Rows per block of the backward kernels' partial column sums (the bias
# and layernorm weight gradients): each program sums a block of rows in
# registers and writes one row of partial sums; torch sums those.
ROWS_PER_BLOCK, LN_ROWS_PER_BLOCK = 16, 4


def blocks(per, name):
    """The row_blocks of a kernel whose input `name` has the rows."""
    return lambda a: -(-getattr(a, name).shape[0] // per)


def partials(per, name):
    """The spec of a [row_blocks, cols] f32 output of partial column sums."""
    return lambda a: ((blocks(per, name)(a), getattr(a, name).shape[1]), torch.float32)


def make_ops(mlp, ce, ns):
    """The Tile operators and the differentiable functions made of them."""
    rows = lambda a: ((a.x.shape[0],), torch.float32)        # noqa: E731
    dims = {"rows": lambda a: a.x.shape[0], "cols": lambda a: a.x.shape[1]}
    ln = tt.custom_op(f"{ns}::layernorm", mlp.layernorm_fwd,
                      outputs={"out": tt.like("x"), "mean_out": rows, "rstd_out": rows},
                      derived=dims)
    ln_bwd = tt.custom_op(f"{ns}::layernorm_bwd", mlp.layernorm_bwd,
                          outputs={"dx": tt.like("x"),
                                   "dw_part": partials(LN_ROWS_PER_BLOCK, "dy"),
                                   "db_part": partials(LN_ROWS_PER_BLOCK, "dy")},
                          derived={"rows": lambda a: a.dy.shape[0],
                                   "cols": lambda a: a.dy.shape[1],
                                   "row_blocks": blocks(LN_ROWS_PER_BLOCK, "dy")})
    mnk = {"M": lambda a: a.a.shape[0], "N": lambda a: a.w.shape[1], "K": lambda a: a.a.shape[1]}
    mn = lambda a: ((a.a.shape[0], a.w.shape[1]), a.a.dtype)  # noqa: E731
    lin_gelu = tt.custom_op(f"{ns}::linear_gelu", mlp.linear_gelu,
                            outputs={"c": mn, "z": mn}, derived=mnk)
    lin = tt.custom_op(f"{ns}::linear", mlp.linear, outputs={"c": mn}, derived=mnk)
    mm = tt.custom_op(f"{ns}::matmul_strided", mlp.matmul_strided,
                      outputs={"c": lambda a: ((a.M, a.N), a.a.dtype)})
    gelu_bwd = tt.custom_op(f"{ns}::gelu_bwd", mlp.gelu_bwd,
                            outputs={"dz": tt.like("dc"),
                                     "dbias_part": partials(ROWS_PER_BLOCK, "dc")},
                            derived={"rows": lambda a: a.dc.shape[0],
                                     "cols": lambda a: a.dc.shape[1],
                                     "row_blocks": blocks(ROWS_PER_BLOCK, "dc")})
    rows_of = {"rows": lambda a: a.logits.shape[0], "cols": lambda a: a.logits.shape[1],
               "stride": lambda a: a.logits.shape[1]}
    per_row = lambda a: ((a.logits.shape[0],), torch.float32)  # noqa: E731
    xent = tt.custom_op(f"{ns}::cross_entropy", ce.cross_entropy_fwd,
                        outputs={"loss": per_row, "lse_out": per_row}, derived=rows_of)
    xent_bwd = tt.custom_op(f"{ns}::cross_entropy_bwd", ce.cross_entropy_bwd_dbias,
                            outputs={"grad": tt.like("logits"),
                                     "dbias_part": partials(ROWS_PER_BLOCK, "logits")},
                            derived=dict(rows_of,
                                         row_blocks=blocks(ROWS_PER_BLOCK, "logits")))

    def mm_nt(g, w):                 # g [M, N] @ w[K, N]^T -> [M, K]
        M, N = g.shape
        K = w.shape[0]
        return mm(g, w, M, K, N, N, 1, 1, N)

    def mm_tn(a, g):                 # a[M, K]^T @ g [M, N] -> [K, N]
        M, K = a.shape
        N = g.shape[1]
        return mm(a, g, K, N, M, 1, K, N, 1)

    def colsum(t):                   # f32 sums read t as it is (no f32 copy)
        return t.sum(0, dtype=torch.float32).to(t.dtype)

    def sum_parts(part, like):       # a bias gradient from a kernel's f32 partial sums
        return part.sum(0).to(like.dtype)

    def ln_backward(s, gout, gmean, grstd):
        dx, dw_part, db_part = ln_bwd(gout, s.x, s.w, s.mean_out, s.rstd_out)
        return {"x": dx, "w": sum_parts(dw_part, s.w), "b": sum_parts(db_part, s.b)}
    ln.register_autograd(ln_backward, materialize_grads=False)

    def lin_gelu_backward(s, gc, gz):
        dz, dbias_part = gelu_bwd(gc, s.z)
        db = sum_parts(dbias_part, s.bias)
        if gz is not None:           # z is kept for the backward; the model does not use it
            dz = dz + gz
            db = db + colsum(gz)
        return {"a": mm_nt(dz, s.w), "w": mm_tn(s.a, dz), "bias": db}
    lin_gelu.register_autograd(lin_gelu_backward, materialize_grads=False)

    def lin_backward(s, gc):
        return {"a": mm_nt(gc, s.w), "w": mm_tn(s.a, gc), "bias": colsum(gc)}
    lin.register_autograd(lin_backward)

    class HeadLoss(torch.autograd.Function):
        """Each row's loss from the logits r @ w + bias. The backward's
        kernel writes the logits' gradient and its column sums by blocks of
        rows (the bias gradient without reading the gradient again), which
        the linear's own backward could not see."""
        @staticmethod
        def forward(ctx, r, w, bias, t):
            logits = lin(r, w, bias)
            loss, lse = xent(logits, t)
            ctx.save_for_backward(r, w, logits, t, lse)
            return loss

        @staticmethod
        def backward(ctx, gloss):
            r, w, logits, t, lse = ctx.saved_tensors
            g, dbias_part = xent_bwd(logits, t, lse, gloss)
            return mm_nt(g, w), mm_tn(r, g), sum_parts(dbias_part, w), None

    return {"ln": ln, "lin_gelu": lin_gelu, "lin": lin, "head_loss": HeadLoss.apply}


def tile_loss(ops, p, x, t):
    y = ops["ln"](x, p["ln_w"], p["ln_b"], 1e-5)[0]
    u = ops["lin_gelu"](y, p["w1"], p["b1"])[0]
    r = x + ops["lin"](u, p["w2"], p["b2"])
    return ops["head_loss"](r, p["wo"], p["bo"], t).mean()   # f32 inside the kernels


def torch_loss(p, x, t):
    y = F.layer_norm(x, (x.shape[1],), p["ln_w"], p["ln_b"], 1e-5)
    u = F.gelu(y @ p["w1"] + p["b1"])
    r = x + (u @ p["w2"] + p["b2"])
    logits = r @ p["wo"] + p["bo"]
    return F.cross_entropy(logits.float(), t.long())


def init_params(D, H, C, dtype, device, seed=0):
    g = torch.Generator().manual_seed(seed)
    r = lambda *s, scale: (torch.randn(*s, generator=g) * scale)  # noqa: E731
    p = {"ln_w": 1 + r(D, scale=0.1), "ln_b": r(D, scale=0.1),
         "w1": r(D, H, scale=D ** -0.5), "b1": r(H, scale=0.1),
         "w2": r(H, D, scale=H ** -0.5), "b2": r(D, scale=0.1),
         "wo": r(D, C, scale=D ** -0.5), "bo": r(C, scale=0.1)}
    return {k: v.to(device=device, dtype=dtype) for k, v in p.items()}


def batches(M, D, C, steps, dtype, device, seed=1):
    """Fixed batches whose targets a linear teacher gives (learnable)."""
    g = torch.Generator().manual_seed(seed)
    teacher = torch.randn(D, C, generator=g)
    out = []
    for _ in range(steps):
        x = torch.randn(M, D, generator=g)
        out.append((x.to(device=device, dtype=dtype),
                    (x @ teacher).argmax(1).to(device=device, dtype=torch.int32)))
    return out


def train(loss_fn, params, data, lr, sync):
    """SGD over data; (losses, seconds per step of each step)."""
    # parameters as a model has them (CUDA graphs of torch.compile's
    # reduce-overhead mode then take them as static inputs, not copies)
    p = {k: torch.nn.Parameter(v.clone()) for k, v in params.items()}
    losses, times = [], []
    for x, t in data:
        sync()
        t0 = time.perf_counter()
        loss = loss_fn(p, x, t)
        loss.backward()
        with torch.no_grad():
            for v in p.values():
                v -= lr * v.grad
                v.grad = None
        sync()
        times.append(time.perf_counter() - t0)
        losses.append(loss.item())
    return losses, times


def xent_bundle(dtype_name):
    """The cross-entropy bundle's file name for logits of dtype_name."""
    return "cross_entropy.tlb" if dtype_name == "f32" else f"cross_entropy-{dtype_name}.tlb"


def load_kernels(args, dtype_name):
    ex = os.path.dirname(HERE)
    if args.bundle_dir:
        return (tile.load(os.path.join(args.bundle_dir, f"mlp-{dtype_name}.tlb")),
                tile.load(os.path.join(args.bundle_dir, xent_bundle(dtype_name))))
    interp = args.device == "cpu"
    defines = {"T": dtype_name}
    return (tile.compile(os.path.join(HERE, "mlp.tile"), defines=defines, interpret=interp),
            tile.compile(os.path.join(ex, "cross_entropy.tile"), defines=defines,
                         interpret=interp))


def cuda_graph_checks(ops, params, data, checks):
    """A Tile op, and the whole Tile forward, captured in a CUDA graph and
    replayed on new inputs, against eager runs."""
    x0, t0 = data[0]
    p = {k: v.clone() for k, v in params.items()}
    static_x = x0.clone()
    with torch.no_grad():
        ops["ln"](static_x, p["ln_w"], p["ln_b"], 1e-5)      # warm-up (tuning)
        tile_loss(ops, p, static_x, t0)
        torch.cuda.synchronize()
        g1, g2 = torch.cuda.CUDAGraph(), torch.cuda.CUDAGraph()
        with torch.cuda.graph(g1):
            y_static = ops["ln"](static_x, p["ln_w"], p["ln_b"], 1e-5)[0]
        with torch.cuda.graph(g2):
            loss_static = tile_loss(ops, p, static_x, t0)
        ok = True
        for x, _ in data[1:4] or data[:1]:
            static_x.copy_(x)
            g1.replay()
            g2.replay()
            torch.cuda.synchronize()
            want_y = ops["ln"](x, p["ln_w"], p["ln_b"], 1e-5)[0]
            want_loss = tile_loss(ops, p, x, t0)
            ok = torch.equal(y_static, want_y) and torch.equal(loss_static, want_loss)
            if not ok:
                break
    checks.append(("CUDA graph: a Tile op and the Tile forward replay as eager", ok))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--size", choices=SIZES, default=None)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--dtype", choices=DTYPES, default="f32")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--backend", default=None,
                    help="torch.compile backend (default: inductor; aot_eager on the CPU)")
    ap.add_argument("--bundle-dir", default=None)
    ap.add_argument("--compile-mode", default=None,
                    help="torch.compile mode of both compiled runs (default: torch's; "
                         "e.g. reduce-overhead: CUDA graphs)")
    ap.add_argument("--tol", type=float, default=None,
                    help="largest loss difference allowed, relative (default by dtype)")
    args = ap.parse_args(argv)
    cuda = args.device.startswith("cuda")
    size = args.size or ("large" if cuda else "tiny")
    M, D, H, C = SIZES[size]
    dtype = DTYPES[args.dtype]
    # f32 on the CPU: the interpreter rounds the products' inputs to tf32
    # as the GPU does, torch's CPU products do not (3.9e-4 apart at the
    # tiny size, docs/PERF.md session 24)
    tol = args.tol or {"f32": 2e-2 if cuda else 2e-3, "bf16": 5e-2, "f16": 5e-2}[args.dtype]
    backend = args.backend or ("inductor" if cuda else "aot_eager")
    if cuda:
        # Tile's f32 dot runs on tf32 tensor cores; so does the reference.
        torch.backends.cuda.matmul.allow_tf32 = True
    sync = torch.cuda.synchronize if cuda else (lambda: None)

    mlp, ce = load_kernels(args, args.dtype)
    ops = make_ops(mlp, ce, f"tile_mlp_{os.getpid()}")
    params = init_params(D, H, C, dtype, args.device)
    data = batches(M, D, C, args.steps, dtype, args.device)
    print(f"device {args.device}, size {size} (M={M} D={D} H={H} C={C}), {args.dtype}, "
          f"{args.steps} steps, torch {torch.__version__}, compile backend {backend}"
          f", mode {args.compile_mode or 'default'}")

    checks = []
    tile_compiled = torch.compile(lambda p, x, t: tile_loss(ops, p, x, t), fullgraph=True,
                                  backend=backend, mode=args.compile_mode)
    torch_compiled = torch.compile(torch_loss, fullgraph=True, backend=backend,
                                   mode=args.compile_mode)
    explained = torch._dynamo.explain(lambda p, x, t: tile_loss(ops, p, x, t))(
        params, *data[0])
    checks.append(("torch.compile: one graph, no graph break",
                   explained.graph_break_count == 0 and explained.graph_count == 1))
    torch._dynamo.reset()

    runs = {}
    for name, fn in [("torch eager", torch_loss),
                     ("tile eager", lambda p, x, t: tile_loss(ops, p, x, t)),
                     ("tile compiled", tile_compiled), ("torch compiled", torch_compiled)]:
        runs[name] = train(fn, params, data, args.lr, sync)

    ref = runs["torch eager"][0]
    print(f"\n{'run':<16}{'first loss':>12}{'final loss':>12}{'max rel diff':>14}"
          f"{'ms/step':>10}")
    for name, (losses, times) in runs.items():
        diff = max(abs(a - b) / max(abs(b), 1e-6) for a, b in zip(losses, ref))
        timed = times[len(times) // 2:] or times       # after warm-up and tuning
        ms = statistics.median(timed) * 1e3
        print(f"{name:<16}{losses[0]:>12.5f}{losses[-1]:>12.5f}{diff:>14.2e}{ms:>10.3f}")
        if name.startswith("tile"):
            checks.append((f"{name}: every step's loss within {tol:g} of torch eager",
                           diff <= tol))
    checks.append(("the loss decreases (torch eager)", ref[-1] < ref[0] or len(ref) < 2))
    if cuda:
        cuda_graph_checks(ops, params, data, checks)
        t_eager = statistics.median(runs["torch eager"][1][len(ref) // 2:] or [1])
        t_tile = statistics.median(runs["tile compiled"][1][len(ref) // 2:] or [1])
        print(f"\ntile compiled vs torch eager: {t_eager / t_tile:.2f}x "
              f"({'faster' if t_tile < t_eager else 'slower'}; reported, not a check)")

    print()
    for what, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {what}")
    failed = sum(not ok for _, ok in checks)
    print(f"{len(checks) - failed} passed, {failed} failed")
    print("PASS" if not failed else "FAIL")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
