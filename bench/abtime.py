"""abtime.py — correct first, then timed: the loop of the one-off A/B
scripts under bench/results/ (bench.py has its own, with its table).

    from abtime import check_then_time
    best = check_then_time(fns, check)

fns maps a name to a callable that runs one system once (returning its
output tensor, or None when it writes a buffer the check reads); check(name,
result) returns None when the output is right, else a message. Every
callable is checked once first (its output poisoned by the callable's
owner); those that fail are printed and left out. The rest are timed with
triton.testing.do_bench (CUDA events, L2 cleared, medians) in `rounds`
rounds, each round starting with the next system, and each keeps its best
median. Returns {name: milliseconds}.

sdpa_case(B, H, S, D, causal) gives an attention case's f16 q, k, v, an
output buffer, the float64 reference (SDPA's math backend in f32) and
cuDNN's SDPA as a callable; mm_case(M, N, K) a product's f16 a [M, K],
b [K, N], an output buffer c, the float64 reference a @ b, its largest
magnitude (for relative errors) and cuBLAS (torch.matmul) as a callable;
mm_check(c, ref, scale) the check of such a product's output."""
import torch
from triton.testing import do_bench


def check_then_time(fns, check, rounds=3, warmup=25, rep=200):
    ok = []
    for name, fn in fns.items():
        result = fn()
        torch.cuda.synchronize()
        msg = check(name, result)
        if msg:
            print(f"{name}: WRONG, {msg}", flush=True)
        else:
            ok.append(name)
    best = {name: float("inf") for name in ok}
    for r in range(rounds):
        order = ok[r % len(ok):] + ok[:r % len(ok)] if ok else []
        for name in order:
            best[name] = min(best[name], do_bench(fns[name], warmup=warmup, rep=rep,
                                                  return_mode="median"))
    return best


def sdpa_case(B, H, S, D, causal):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    sdpa = torch.nn.functional.scaled_dot_product_attention
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.float16) for _ in range(3))
    with sdpa_kernel(SDPBackend.MATH):
        ref = sdpa(q.float(), k.float(), v.float(), is_causal=causal).double()

    def cudnn():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return sdpa(q, k, v, is_causal=causal)
    return q, k, v, torch.empty_like(q), ref, cudnn


def mm_case(M, N, K):
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.empty(M, N, device="cuda", dtype=torch.float16)
    ref = a.double() @ b.double()
    return a, b, c, ref, ref.abs().max().item(), lambda: torch.matmul(a, b)


def mm_check(c, ref, scale, tol=2e-3):
    """A check for check_then_time over mm_case's product: the output (the
    callable's result, or the buffer c) against ref, largest error over
    scale below tol; c poisoned again after each check."""
    def check(name, r):
        got = r if isinstance(r, torch.Tensor) else c
        err = ((got.double() - ref).abs().max() / scale).item()
        c.fill_(float("nan"))
        return None if err < tol else f"rel err {err:.2e}"
    return check


def mm_table(ks, names, shapes):
    """Prints a table of matmul kernels `ks[name]` (examples/matmul.tile's
    signature) beside cuBLAS, one row per (M, N, K) of `shapes`: each
    output poisoned and checked first, then best medians (µs); WRONG
    where a check failed."""
    print("| M x N x K | cuBLAS | " + " | ".join(names) + " |\n| --- | ---: |" +
          " ---: |" * len(names), flush=True)
    for M, N, K in shapes:
        a, b, c, ref, scale, cublas = mm_case(M, N, K)
        fns = {"cuBLAS": cublas}
        for n in names:
            fns[n] = (lambda n: lambda: ks[n](c, a, b, M, N, K, K, N, N))(n)
        c.fill_(float("nan"))
        best = check_then_time(fns, mm_check(c, ref, scale))
        row = " | ".join(f"{best[n] * 1e3:.1f}" if n in best else "WRONG"
                         for n in ("cuBLAS",) + tuple(names))
        print(f"| {M}x{N}x{K} | {row} |", flush=True)
        del a, b, c, ref, fns
