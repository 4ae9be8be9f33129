"""wheel_examples — the examples through an installed `tile` package, each
checked against PyTorch, for scripts/gpu-wheel.sh.

    python3 scripts/wheel_examples.py EXAMPLES_DIR

Refuses to run unless `tile` is imported from outside this source tree
(the wheel installed in a virtual environment) and none of TILEC,
TILE_LIBDIR, TILE_STDLIB is set, so that the package's own tilec,
libraries and stdlib are what is tried. Every example is compiled by
tile.compile for the device's architecture (tile.gpu.default_arch), all
at once on the machine's cores; the matrix products with one pinned
configuration (a full autotuning space compiles for minutes), the others
with all of theirs. Then each runs on CUDA tensors and is compared with
PyTorch, and softmax also runs in the interpreter (the wheel's libtilec)
on a CPU tensor. Prints one row per check and `N passed, N failed`;
exit status 0 when all passed.
"""

import math
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import torch

import tile
import tile.gpu

# (example, defines): the matrix products pinned to one configuration.
MM = {"BM": 128, "BN": 128, "BK": 64, "warps": 8, "stages": 3}
BUILDS = [("vadd", {}), ("bias_gelu", {}), ("bias_gelu", {"T": "bf16"}), ("softmax", {}),
          ("layernorm", {}), ("cross_entropy", {}), ("transpose", {}), ("dropout", {}),
          ("stencil", {}), ("matmul", MM), ("matmul_bias_relu", MM),
          ("matmul_gelu", MM), ("linear_relu", MM), ("bmm", MM),
          ("attention", {"BM": 128, "BN": 64, "warps": 8, "stages": 2})]


def close(got, want, atol, rtol=0.0):
    """(every |got - want| <= atol + rtol |want|, the largest |got - want|)."""
    diff = (got.float() - want.float()).abs()
    return bool((diff <= atol + rtol * want.float().abs()).all()), diff.max().item()


def check_vadd(m, dev):
    x, y = torch.randn(1 << 20, device=dev), torch.randn(1 << 20, device=dev)
    out = torch.empty_like(x)
    m.vadd(out, x, y, x.numel())
    return close(out, x + y, 0)


def check_bias_gelu(m, dev, dtype=torch.float32, rtol=1e-5):
    x = torch.randn(1 << 20, device=dev).to(dtype)
    out = torch.empty_like(x)
    m.bias_gelu(out, x, 1.5, 0.25, x.numel())
    # float64's gelu as the reference (float32's loses relative accuracy
    # for tiny results); the tolerances of examples/host/bias_gelu.c
    want = torch.nn.functional.gelu((x.float() * 1.5 + 0.25).double())
    return close(out.double(), want, 4e-6, rtol)


def check_softmax(m, dev):
    x = torch.randn(512, 3000, device=dev)
    out = torch.empty_like(x)
    m.softmax(out, x, 512, 3000, 3000)
    return close(out, torch.softmax(x, 1), 1e-6)


def check_layernorm(m, dev):
    rows, cols = 256, 4096
    x, res = torch.randn(rows, cols, device=dev), torch.randn(rows, cols, device=dev)
    w, b = torch.randn(cols, device=dev), torch.randn(cols, device=dev)
    out, h = torch.empty_like(x), torch.empty_like(x)
    mean, rstd = torch.empty(rows, device=dev), torch.empty(rows, device=dev)
    m.add_layernorm(out, h, mean, rstd, x, res, w, b, rows, cols, cols, 1e-5)
    want = torch.nn.functional.layer_norm(x + res, (cols,), w, b, 1e-5)
    return close(out, want, 1e-4)


def check_cross_entropy(m, dev):
    rows, cols = 128, 32000
    logits = torch.randn(rows, cols, device=dev)
    target = torch.randint(0, cols, (rows,), device=dev, dtype=torch.int32)
    loss, grad = torch.empty(rows, device=dev), torch.empty_like(logits)
    m.cross_entropy(loss, grad, logits, target, rows, cols, cols, 1.0 / rows)
    ref = logits.clone().requires_grad_()
    want = torch.nn.functional.cross_entropy(ref, target.long(), reduction="none")
    want.mean().backward()
    ok1, e1 = close(loss, want.detach(), 1e-4)
    ok2, e2 = close(grad, ref.grad, 1e-6)
    return ok1 and ok2, max(e1, e2)


def check_transpose(m, dev):
    x = torch.randn(1000, 777, device=dev)
    out = torch.empty(777, 1000, device=dev)
    m.transpose(out, x, 1000, 777, 777, 1000)
    return close(out, x.t(), 0)


def check_matmul(m, dev):
    M, N, K = 1000, 1024, 512
    a = torch.randn(M, K, device=dev, dtype=torch.float16)
    b = torch.randn(K, N, device=dev, dtype=torch.float16)
    c = torch.empty(M, N, device=dev, dtype=torch.float16)
    m.matmul(c, a, b, M, N, K, K, N, N)
    want = (a.float() @ b.float()).half()
    return close(c, want, 1e-2, 2e-3)      # one f16 rounding apart


def check_attention(m, dev):
    heads, S, D = 8, 1024, 64
    q, k, v = (torch.randn(heads, S, D, device=dev, dtype=torch.float16) for _ in range(3))
    o = torch.empty_like(q)
    m.attention(o, q, k, v, heads, S, S * D, D, 1 / math.sqrt(D))
    want = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    return close(o, want, 2e-2)


def check_softmax_interpreted(path):
    m = tile.compile(path, interpret=True)
    x = torch.randn(8, 300)
    out = torch.empty_like(x)
    m.softmax(out, x, 8, 300, 300, BLOCK=512)
    return close(out, torch.softmax(x, 1), 1e-6)


CHECKS = {("vadd", ""): check_vadd, ("bias_gelu", ""): check_bias_gelu,
          ("bias_gelu", "T=bf16"): lambda m, d: check_bias_gelu(m, d, torch.bfloat16, 2 ** -7),
          ("softmax", ""): check_softmax, ("layernorm", ""): check_layernorm,
          ("cross_entropy", ""): check_cross_entropy, ("transpose", ""): check_transpose,
          ("matmul", None): check_matmul, ("attention", None): check_attention}


def key(name, defines):
    return name, ",".join(f"{k}={v}" for k, v in defines.items())


def main(argv):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if os.path.abspath(tile.__file__).startswith(here + os.sep):
        sys.exit(f"wheel_examples: tile comes from the source tree ({tile.__file__}), "
                 "not an installed wheel")
    set_vars = [v for v in ("TILEC", "TILE_LIBDIR", "TILE_STDLIB") if os.environ.get(v)]
    if set_vars:
        sys.exit(f"wheel_examples: unset {', '.join(set_vars)}: the wheel must find its own files")
    examples, dev = argv[1], "cuda"
    arch = tile.gpu.default_arch(torch.cuda.get_device_capability())
    print(f"tile {tile.__version__} from {os.path.dirname(tile.__file__)}; arch {arch}; "
          f"torch {torch.__version__}")

    def build(item):
        name, defines = item
        t0 = time.perf_counter()
        try:
            return tile.compile(os.path.join(examples, name + ".tile"), defines=defines), \
                time.perf_counter() - t0, None
        except tile.TileError as e:
            return None, time.perf_counter() - t0, e

    t0 = time.perf_counter()
    with ThreadPoolExecutor(os.cpu_count()) as pool:
        built = dict(zip((key(*b) for b in BUILDS), pool.map(build, BUILDS)))
    print(f"compiled {len(BUILDS)} examples in {time.perf_counter() - t0:.1f} s "
          f"({os.cpu_count()} at a time)\n")
    print(f"{'example':34} {'compile s':>9}  {'check':6} {'max error':>10}")
    passed = failed = 0
    for (name, dstr), (mod, secs, err) in built.items():
        check = CHECKS.get((name, dstr)) or CHECKS.get((name, None))
        if mod is None:
            ok, what = False, f"compile failed: {err}"
        elif check is None:
            ok, what = True, "compiled"
        else:
            try:
                ok, e = check(mod, dev)
                torch.cuda.synchronize()
                what = f"{e:10.2e}"
            except Exception as ex:  # noqa: BLE001 (a failed check is a row)
                ok, what = False, f"{type(ex).__name__}: {ex}"
        passed, failed = passed + ok, failed + (not ok)
        label = f"{name} (one configuration)" if (name, "") not in CHECKS and dstr else \
            f"{name} {dstr}".strip()
        print(f"{label:34} {secs:9.2f}  {'PASS' if ok else 'FAIL':6} {what}")
    try:
        ok, e = check_softmax_interpreted(os.path.join(examples, "softmax.tile"))
        what = f"{e:10.2e}"
    except Exception as ex:  # noqa: BLE001
        ok, what = False, f"{type(ex).__name__}: {ex}"
    passed, failed = passed + ok, failed + (not ok)
    print(f"{'softmax (interpreter, CPU)':34} {'':9}  {'PASS' if ok else 'FAIL':6} {what}")
    print(f"\n{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
