"""bench.py — Tile beside Triton and PyTorch on one GPU, in one process.

    python3 bench/bench.py [--build build-gpu] [--out DIR] [step ...]
    python3 bench/bench.py --dry-run     (no GPU: loads libtile and every
                                          bundle, checks the signatures)

steps (default: all, in this order): copy vadd bias_gelu softmax layernorm
transpose tune matmul mm_bias_relu attention launch compile (the
tensor-core steps report TFLOP/s in the note column: 2n^3 per matmul,
4·B·H·S²·D per attention, halved when causal; `tune` is the autotuner's
wall time: the first launch of a multi-configuration softmax bundle, which
tunes, beside later launches that find the winner in memory or on disk).
Step `shapes` runs only when named: issue 13's sweep of every workload at
sizes n-3 .. n+8 and attention at S = 1000 .. 4096 beside Triton in the
same configuration, with a ratio table (shapes.md) and chart (shapes.png).
Step `user` runs only when named: issue 17's seven user kernels
(bench/user_bench.py) on model-like shapes beside Triton and PyTorch
eager; `--user rmsnorm,swiglu` picks workloads.
Step `sweep` runs only when named: matmul f16 and attention D=64 over
more tile shapes, warps and stages (configs.SWEEP_*, bundles from
`build_bundles.py --sweep`), matmul beside Triton's kernel at the same
tile, warps and stages, and cuBLAS.

Tile kernels come from the bundles `scripts/gpu-bench.sh prepare` builds
into BUILD/bench (bench/configs.py lists them), launched through libtile
(BUILD/libtile.so) with ctypes (bench/tile_ctypes.py) on torch's current
stream. The Triton kernels below are written for this benchmark, one per
workload, computing what the Tile kernel computes with the same block
sizes and warps; PyTorch runs eager and, where it fuses, torch.compile.

Method (docs/PERF.md): every system's output is first checked against a
float64 (or float32 for exact copies) torch reference on fresh random
inputs, the output poisoned with NaN before the run; a wrong result is
reported loudly (CHECK FAILED, and the row is marked) and timing goes on.
Times are medians of triton.testing.do_bench (CUDA events, L2 cleared
before every run, 25 ms warm-up, 100 ms of repetitions). GB/s counts each
input read once and each output written once. Every workload runs in its
own try/except: one failure does not stop the rest, and the TSV and
Markdown under --out (default $OUT) are rewritten after every workload, so
a run cut short still leaves its results; the PNG charts (bench/charts.py:
bench-bandwidth.png, bench-tflops.png) are redrawn after every step, a
charting error only reported.
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import configs  # noqa: E402
import hosttime  # noqa: E402
import charts  # noqa: E402
from tile_ctypes import Libtile, f64, i64, ptr  # noqa: E402

ROWS = []          # dicts: work, system, ms, gbs, note, ok
FAILURES = []      # (step, message)
ARGS = None


def row(work, system, ms, nbytes=None, note="", ok=True):
    gbs = nbytes / ms / 1e6 if nbytes and ms and ms > 0 else None
    ROWS.append(dict(work=work, system=system, ms=ms, gbs=gbs, note=note, ok=ok))
    print(f"{work:30s} {system:28s} {ms * 1e3:11.2f} us"
          + (f" {gbs:7.0f} GB/s" if gbs else "") + (" CHECK FAILED" if not ok else "")
          + (f"  {note}" if note else ""), flush=True)
    write_results()


def fail(step, msg):
    FAILURES.append((step, msg))
    print(f"!!! {step}: {msg}", flush=True)
    write_results()


# ---------------------------------------------------------------- results

def ratios():
    """Tile / Triton speed (Triton ms / Tile ms) for each Tile row, and the
    fraction of the measured copy bandwidth for each row with GB/s."""
    triton = {}
    for r in ROWS:
        if r["system"].startswith("triton") and r["ok"]:
            triton.setdefault(r["work"], r["ms"])
    copy = [r["gbs"] for r in ROWS if r["work"].startswith("copy") and r["gbs"]]
    out = []
    for r in ROWS:
        rt = None
        if r["system"].startswith("tile") and r["work"] in triton and r["ms"]:
            rt = triton[r["work"]] / r["ms"]
        frac = r["gbs"] / copy[0] if copy and r["gbs"] else None
        out.append((r, rt, frac))
    return out


def fmt(v, spec):
    return "" if v is None else format(v, spec)


def write_results():
    out = ARGS.out if ARGS else None
    if not out:
        return
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "bench.tsv"), "w") as f:
        f.write("work\tsystem\tms\tGBps\ttile_over_triton\tof_copy_bw\tcheck\tnote\n")
        for r, rt, frac in ratios():
            f.write("\t".join([r["work"], r["system"], fmt(r["ms"], ".6g"), fmt(r["gbs"], ".6g"),
                               fmt(rt, ".4g"), fmt(frac, ".4g"), "ok" if r["ok"] else "FAILED",
                               r["note"]]) + "\n")
    with open(os.path.join(out, "bench.md"), "w") as f:
        f.write(markdown())


def markdown():
    lines = ["| workload | system | median µs | GB/s | % of copy | Tile ÷ Triton | note |",
             "| --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for r, rt, frac in ratios():
        note = ("**CHECK FAILED** " if not r["ok"] else "") + r["note"]
        lines.append(f"| {r['work']} | {r['system']} | {fmt(r['ms'] * 1e3, '.1f')} | "
                     f"{fmt(r['gbs'], '.0f')} | {fmt(frac and frac * 100, '.1f')} | "
                     f"{fmt(rt, '.3f')} | {note} |")
    if FAILURES:
        lines.append("")
        lines += [f"- step `{s}` failed: {(m.splitlines() or [''])[0]}" for s, m in FAILURES]
    return "\n".join(lines) + "\n"


def draw_charts():
    """The PNG charts under --out; any error (matplotlib missing, a bad
    row) is printed and forgotten: the TSV and Markdown are already
    written."""
    if not (ARGS and ARGS.out):
        return
    try:
        title = ""
        if "torch" in globals():
            title = f"{torch.cuda.get_device_name()}, {time.strftime('%Y-%m-%d')}"
        for p in charts.write_charts(ROWS, ARGS.out, title):
            print(f"chart: {p}", flush=True)
    except Exception as e:  # noqa: BLE001
        print(f"charts not drawn: {type(e).__name__}: {e}", flush=True)


def print_table():
    print("\n" + "=" * 100)
    print(f"{'workload':30s} {'system':28s} {'ms':>9s} {'GB/s':>7s} {'%copy':>6s} "
          f"{'tile/triton':>11s}")
    for r, rt, frac in ratios():
        print(f"{r['work']:30s} {r['system']:28s} {r['ms']:9.4f} {fmt(r['gbs'], '7.0f'):>7s} "
              f"{fmt(frac and frac * 100, '6.1f'):>6s} {fmt(rt, '11.3f'):>11s}"
              + ("  CHECK FAILED" if not r["ok"] else ""))
    for s, m in FAILURES:
        print(f"FAILED step {s}: {m.splitlines()[0] if m else ''}")
    print("tile/triton: Triton's median time over Tile's (> 1: Tile faster); "
          "%copy: GB/s over the 1 GiB device copy's")


# ---------------------------------------------------------------- set-up

def setup_torch():
    global torch, triton, tl, do_bench
    import torch  # noqa: F811
    import triton  # noqa: F811
    import triton.language as tl  # noqa: F811
    from triton.testing import do_bench  # noqa: F811
    torch.manual_seed(int(time.time()))
    define_triton_kernels()


PROFILE = bool(os.environ.get("BENCH_PROFILE"))   # scripts/gpu-profile.sh: one launch


def bench(fn):
    if PROFILE:
        fn()
        torch.cuda.synchronize()
        return float("nan")
    return do_bench(fn, warmup=25, rep=100, return_mode="median")


def stream():
    return torch.cuda.current_stream().cuda_stream


def addr(t):
    return t.data_ptr()


LIB = None


def tile_kernel(name, kernel):
    return LIB.kernel(os.path.join(ARGS.build, "bench", name + ".tlb"), kernel)


def relerr(out, ref):
    """|out - ref| / |ref| in float64; NaN anywhere (an unwritten, poisoned
    element) gives inf."""
    out = out.double()
    ref = ref.double()
    if torch.isnan(out).any():
        return math.inf
    return ((out - ref).norm() / ref.norm()).item()


TOL = {"float32": 1e-5, "bfloat16": 1e-2, "float16": 5e-3}


def checked(work, system, fn, ref, tol, out=None):
    """Runs fn once and compares its result with ref: `out` when fn writes
    into it (poisoned with NaN first, so unwritten elements fail), else
    the tensor fn returns (fresh memory, as torch allocates it). Returns
    (ok, note)."""
    if out is not None:
        out.fill_(float("nan"))
        fn()
        got = out
    else:
        got = fn()
    torch.cuda.synchronize()
    e = relerr(got, ref)
    ok = e <= tol
    if not ok:
        print(f"CHECK FAILED: {work} {system}: |out - ref| / |ref| = {e:.3g} > {tol:g}",
              flush=True)
    return ok, f"relerr {e:.1e}"


def timed(work, system, fn, ref, tol, nbytes, out=None, note=""):
    """Checks then times one system; a failure of either is recorded and
    the caller goes on with the next system."""
    try:
        ok, err = checked(work, system, fn, ref, tol, out)
        ms = bench(fn)
        row(work, system, ms, nbytes, note=(note + "; " if note else "") + err, ok=ok)
    except Exception as e:  # noqa: BLE001
        fail(f"{work} / {system}", f"{type(e).__name__}: {e}")


def compiled(fn):
    return fn if PROFILE else torch.compile(fn)


# ---------------------------------------------------------------- Triton kernels

def define_triton_kernels():
    global tr_add, tr_bias_gelu, tr_softmax, tr_layernorm, tr_transpose

    @triton.jit
    def tr_add(out, x, y, n, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        keep = i < n
        tl.store(out + i, tl.load(x + i, mask=keep) + tl.load(y + i, mask=keep), mask=keep)

    @triton.jit
    def tr_bias_gelu(out, x, a, b, n, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        keep = i < n
        z = tl.load(x + i, mask=keep).to(tl.float32) * a + b
        g = 0.5 * z * (1.0 + tl.math.erf(z * 0.7071067811865476))
        tl.store(out + i, g.to(out.dtype.element_ty), mask=keep)

    @triton.jit
    def tr_softmax(out, x, cols, stride, BLOCK: tl.constexpr):
        base = tl.program_id(0) * stride
        c = tl.arange(0, BLOCK)
        keep = c < cols
        v = tl.load(x + base + c, mask=keep, other=-float("inf")).to(tl.float32)
        e = tl.exp(v - tl.max(v, axis=0))
        tl.store(out + base + c, (e / tl.sum(e, axis=0)).to(out.dtype.element_ty), mask=keep)

    @triton.jit
    def tr_layernorm(y, x, w, b, cols, stride, eps, BLOCK: tl.constexpr):
        base = tl.program_id(0) * stride
        c = tl.arange(0, BLOCK)
        keep = c < cols
        v = tl.load(x + base + c, mask=keep, other=0.0).to(tl.float32)
        mean = tl.sum(v, axis=0) / cols
        d = tl.where(keep, v - mean, 0.0)
        rstd = tl.rsqrt(tl.sum(d * d, axis=0) / cols + eps)
        wv = tl.load(w + c, mask=keep, other=0.0).to(tl.float32)
        bv = tl.load(b + c, mask=keep, other=0.0).to(tl.float32)
        tl.store(y + base + c, (d * rstd * wv + bv).to(y.dtype.element_ty), mask=keep)

    @triton.jit
    def tr_transpose(out, x, rows, cols, x_stride, out_stride,
                     BM: tl.constexpr, BN: tl.constexpr):
        r = (tl.program_id(0) * BM + tl.arange(0, BM))[:, None]
        c = (tl.program_id(1) * BN + tl.arange(0, BN))[None, :]
        keep = (r < rows) & (c < cols)
        v = tl.load(x + r * x_stride + c, mask=keep)
        tl.store(out + c * out_stride + r, v, mask=keep)


# ---------------------------------------------------------------- workloads

def step_copy():
    n = 1 << 28
    x = torch.randn(n, device="cuda")
    y = torch.empty_like(x)
    work = "copy 1 GiB fp32"
    timed(work, "torch copy_ (D2D)", lambda: y.copy_(x), x, 0.0, 2 * n * 4, out=y)
    del x, y


def step_vadd():
    n = 1 << 28
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    ref = x + y
    work, nbytes = "vadd fp32 2^28", 3 * n * 4
    timed(work, "torch eager", lambda: torch.add(x, y, out=out), ref, 0.0, nbytes, out=out)
    grid = (triton.cdiv(n, 1024),)
    timed(work, "triton BLOCK=1024 w4", lambda: tr_add[grid](out, x, y, n, BLOCK=1024, num_warps=4),
          ref, 0.0, nbytes, out=out)
    k = tile_kernel("vadd", "vadd")
    launch = k.bind([ptr(addr(out)), ptr(addr(x)), ptr(addr(y)), i64(n)], stream())
    timed(work, "tile BLOCK=1024 w4", launch, ref, 0.0, nbytes, out=out)


def step_bias_gelu():
    n = 1 << 28
    a, b = 1.5, -0.25
    for dt, t in ((torch.float32, "f32"), (torch.bfloat16, "bf16")):
        try:
            x = torch.randn(n, device="cuda", dtype=dt)
            out = torch.empty_like(x)
            ref = torch.nn.functional.gelu(x.double() * a + b)
            work = f"bias_gelu {t} 2^28"
            nbytes, tol = 2 * n * x.element_size(), TOL[str(dt)[6:]]
            timed(work, "torch eager", lambda: torch.nn.functional.gelu(x * a + b), ref, tol,
                  nbytes, note="3 kernels")
            comp = compiled(lambda t_: torch.nn.functional.gelu(t_ * a + b))
            timed(work, "torch.compile", lambda: comp(x), ref, tol, nbytes)
            for block, w in ((1024, 4), (4096, 8)):
                grid = (triton.cdiv(n, block),)
                timed(work, f"triton BLOCK={block} w{w}",
                      lambda: tr_bias_gelu[grid](out, x, a, b, n, BLOCK=block, num_warps=w),
                      ref, tol, nbytes, out=out)
            for block, w in ((1024, 4), (4096, 8)):
                k = tile_kernel(f"bias_gelu_{t}_b{block}_w{w}", "bias_gelu")
                launch = k.bind([ptr(addr(out)), ptr(addr(x)), f64(a), f64(b), i64(n)], stream())
                timed(work, f"tile BLOCK={block} w{w}", launch, ref, tol, nbytes, out=out)
            del x, out, ref
        except Exception as e:  # noqa: BLE001
            fail(f"bias_gelu {t}", f"{type(e).__name__}: {e}\n{traceback.format_exc()}")


def step_softmax():
    M = 4096
    for n in configs.SOFTMAX_N:
        for dt, t in ((torch.float32, "f32"), (torch.bfloat16, "bf16")):
            try:
                x = torch.randn(M, n, device="cuda", dtype=dt)
                out = torch.empty_like(x)
                ref = torch.softmax(x.double(), dim=-1)
                work = f"softmax {t} {M}x{n}"
                nbytes, tol = 2 * M * n * x.element_size(), TOL[str(dt)[6:]]
                timed(work, "torch eager", lambda: torch.softmax(x, dim=-1), ref, tol, nbytes)
                comp = compiled(lambda t_: torch.softmax(t_, dim=-1))
                timed(work, "torch.compile", lambda: comp(x), ref, tol, nbytes)
                block = configs.next_pow2(n)
                w = configs.softmax_warps(block)
                timed(work, f"triton BLOCK={block} w{w}",
                      lambda: tr_softmax[(M,)](out, x, n, x.stride(0), BLOCK=block, num_warps=w),
                      ref, tol, nbytes, out=out)
                ws = [w] + [v for v in (4, 8, 16) if v != w]
                for wt in ws:
                    k = tile_kernel(f"softmax_{t}_{n}_w{wt}", "softmax")
                    launch = k.bind([ptr(addr(out)), ptr(addr(x)), i64(M), i64(n),
                                     i64(x.stride(0))], stream())
                    timed(work, f"tile BLOCK={block} w{wt}", launch, ref, tol, nbytes, out=out)
                del x, out, ref
            except Exception as e:  # noqa: BLE001
                fail(f"softmax {t} {n}", f"{type(e).__name__}: {e}\n{traceback.format_exc()}")


def step_layernorm():
    M, eps = 4096, 1e-5
    for n in configs.LAYERNORM_N:
        try:
            dt = torch.float16
            x = torch.randn(M, n, device="cuda", dtype=dt)
            w_ = torch.randn(n, device="cuda", dtype=dt)
            b_ = torch.randn(n, device="cuda", dtype=dt)
            y = torch.empty_like(x)
            ref = torch.nn.functional.layer_norm(x.double(), (n,), w_.double(), b_.double(), eps)
            work = f"layernorm fp16 {M}x{n}"
            nbytes, tol = 2 * M * n * 2, TOL["float16"]
            ln = lambda t_: torch.nn.functional.layer_norm(t_, (n,), w_, b_, eps)  # noqa: E731
            timed(work, "torch eager", lambda: ln(x), ref, tol, nbytes)
            comp = compiled(ln)
            timed(work, "torch.compile", lambda: comp(x), ref, tol, nbytes)
            block = configs.next_pow2(n)
            w = configs.layernorm_warps(block)
            timed(work, f"triton BLOCK={block} w{w}",
                  lambda: tr_layernorm[(M,)](y, x, w_, b_, n, x.stride(0), eps, BLOCK=block,
                                             num_warps=w), ref, tol, nbytes, out=y)
            for wt in [w] + [v for v in (4, 8, 16) if v != w]:
                k = tile_kernel(f"layernorm_f16_{n}_w{wt}", "layernorm")
                launch = k.bind([ptr(addr(y)), ptr(addr(x)), ptr(addr(w_)), ptr(addr(b_)),
                                 i64(M), i64(n), i64(x.stride(0)), f64(eps)], stream())
                timed(work, f"tile BLOCK={block} w{wt}", launch, ref, tol, nbytes, out=y)
            del x, y, ref
        except Exception as e:  # noqa: BLE001
            fail(f"layernorm {n}", f"{type(e).__name__}: {e}\n{traceback.format_exc()}")


def step_transpose():
    n = 8192
    x = torch.randn(n, n, device="cuda")
    out = torch.empty_like(x)
    ref = x.t().contiguous()
    work, nbytes = f"transpose fp32 {n}x{n}", 2 * n * n * 4
    timed(work, "torch eager", lambda: out.copy_(x.t()), ref, 0.0, nbytes, out=out)
    comp = compiled(lambda t_: t_.t().contiguous())
    timed(work, "torch.compile", lambda: comp(x), ref, 0.0, nbytes)
    for bm, bn, w in configs.TRANSPOSE_TILES:
        grid = (triton.cdiv(n, bm), triton.cdiv(n, bn))
        timed(work, f"triton {bm}x{bn} w{w}",
              lambda: tr_transpose[grid](out, x, n, n, n, n, BM=bm, BN=bn, num_warps=w),
              ref, 0.0, nbytes, out=out)
    for bm, bn, w in configs.TRANSPOSE_TILES:
        k = tile_kernel(f"transpose_{bm}x{bn}_w{w}", "transpose")
        launch = k.bind([ptr(addr(out)), ptr(addr(x)), i64(n), i64(n), i64(n), i64(n)], stream())
        timed(work, f"tile {bm}x{bn} w{w}", launch, ref, 0.0, nbytes, out=out)


def host_time_per_call(fn):
    """Host ms per launch (hosttime.per_call_s), as row() expects."""
    return hosttime.per_call_s(fn, sync=torch.cuda.synchronize) * 1e3


def step_launch():
    n = 1024
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    k = tile_kernel("vadd", "vadd")
    tile_launch = k.bind([ptr(addr(out)), ptr(addr(x)), ptr(addr(y)), i64(n)], stream())
    tr = lambda: tr_add[(1,)](out, x, y, n, BLOCK=1024, num_warps=4)  # noqa: E731
    work = "launch vadd 1 block (host)"
    for system, fn in (("tile_launch via ctypes", tile_launch), ("triton launch", tr),
                       ("torch.add launch", lambda: torch.add(x, y, out=out))):
        try:
            ok, err = checked(work, system, fn, x + y, 0.0, out)
            row(work, system, host_time_per_call(fn), note="host time per call; " + err, ok=ok)
        except Exception as e:  # noqa: BLE001
            fail(f"launch / {system}", f"{type(e).__name__}: {e}")
    # 100 dependent tiny launches, eager and replayed from a CUDA graph.
    for system, fn in (("tile", tile_launch), ("triton", tr)):
        try:
            g = torch.cuda.CUDAGraph()
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                fn()
            torch.cuda.current_stream().wait_stream(s)
            if system == "tile":      # capture on the graph's stream
                with torch.cuda.graph(g):
                    cap = k.bind([ptr(addr(out)), ptr(addr(x)), ptr(addr(y)), i64(n)], stream())
                    for _ in range(100):
                        cap()
            else:
                with torch.cuda.graph(g):
                    for _ in range(100):
                        fn()
            row("100 tiny launches, eager", system, bench(lambda: [fn() for _ in range(100)]))
            out.fill_(float("nan"))
            g.replay()
            torch.cuda.synchronize()
            ok = relerr(out, x + y) == 0.0
            row("100 tiny launches, CUDA graph", system, bench(g.replay), ok=ok)
        except Exception as e:  # noqa: BLE001
            fail(f"launch graph / {system}", f"{type(e).__name__}: {e}")
    # The C side-by-side measurement (bench/launch_overhead), when its
    # output was saved by scripts/gpu-bench.sh.
    path = os.path.join(ARGS.out or ".", "launch_overhead.txt")
    if os.path.exists(path):
        read_launch_overhead(path, work)


def read_launch_overhead(path, work):
    """Rows from bench/launch_overhead's report: its median lines and the
    median difference."""
    import re
    text = open(path).read()
    for label, system in (("bare cuLaunchKernel", "C bare cuLaunchKernel"),
                          ("tile_launch", "C tile_launch")):
        m = re.search(r"^" + re.escape(label) + r"\s+([0-9.]+) us", text, re.M)
        if m:
            row(work, system, float(m.group(1)) / 1e3, note="bench/launch_overhead median")
    m = re.search(r"^tile_launch - bare .*?: ([-0-9.]+) us; target <= 0.5 us: (\w+)", text, re.M)
    if m:
        row(work, "C tile_launch - bare", float(m.group(1)) / 1e3,
            note=f"median of per-round differences; target <= 0.5 us: {m.group(2)}")


def _wall_ms(fn):
    """Host wall time of fn() up to the end of the GPU work it queued."""
    torch.cuda.synchronize()
    t = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) * 1e3


def step_tune():
    """Autotuning wall time, through libtile: examples/softmax.tile with all
    its configurations (configs.TUNE_BUNDLE), f32, TUNE_ROWS x cols for each
    of TUNE_COLS (each a new key: its candidates are the configurations
    with BLOCK >= cols). With TILE_CACHE_DIR a fresh directory and
    TILE_AUTOTUNE=force: the first launch (tunes every candidate, then
    launches the winner), the second (the winner from the in-memory
    table); then the bundle loaded anew with TILE_AUTOTUNE=1, whose first
    launch finds the winner in the disk cache. Each launch's output is
    checked; the environment is restored afterwards."""
    path = os.path.join(ARGS.build, "bench", configs.TUNE_BUNDLE + ".tlb")
    M = configs.TUNE_ROWS
    saved = {v: os.environ.get(v) for v in ("TILE_AUTOTUNE", "TILE_CACHE_DIR")}
    with tempfile.TemporaryDirectory(prefix="tile-bench-tune-") as cache:
        try:
            os.environ["TILE_CACHE_DIR"] = cache
            os.environ["TILE_AUTOTUNE"] = "force"
            tuned = LIB.kernel(path, "softmax", fresh=True)
            names = tuned.config_names()
            cases = []
            for cols in configs.TUNE_COLS:
                x = torch.randn(M, cols, device="cuda")
                out = torch.empty_like(x)
                args = [ptr(addr(out)), ptr(addr(x)), i64(M), i64(cols), i64(x.stride(0))]
                ref = torch.softmax(x.double(), dim=-1)
                try:
                    ncand = sum(1 for n in names
                                if int(dict(kv.split("=") for kv in n.split(","))["BLOCK"])
                                >= cols)
                except (KeyError, ValueError):
                    ncand = "?"
                cases.append((cols, x, out, args, ref, ncand))

            def measure(work, system, kern, args, out, ref, note):
                launch = kern.bind(args, stream())
                out.fill_(float("nan"))
                ms = _wall_ms(launch)
                e = relerr(out, ref)
                ok = e <= TOL["float32"]
                if not ok:
                    print(f"CHECK FAILED: {work} {system}: relerr {e:.3g}", flush=True)
                cfg = kern.choose(args, stream())
                row(work, system, ms, note=f"{note}; chose {names[cfg]}; relerr {e:.1e}",
                    ok=ok)

            for cols, x, out, args, ref, ncand in cases:
                work = f"autotune softmax f32 {M}x{cols}"
                try:
                    c = f"{ncand} of {len(names)} configurations are candidates"
                    measure(work, "tile 1st launch: tunes (force)", tuned, args, out, ref,
                            "wall ms incl. tuning; " + c)
                    measure(work, "tile 2nd launch: memory hit", tuned, args, out, ref,
                            "wall ms; " + c)
                    os.environ["TILE_AUTOTUNE"] = "1"     # read by the load below
                    reloaded = LIB.kernel(path, "softmax", fresh=True)
                    os.environ["TILE_AUTOTUNE"] = "force"
                    measure(work, "tile reloaded: disk cache hit", reloaded, args, out, ref,
                            "wall ms, first launch after a new bundle load; " + c)
                except Exception as e:  # noqa: BLE001
                    fail(work, f"{type(e).__name__}: {e}\n{traceback.format_exc()}")
            files = os.listdir(cache)
            if not any(f.endswith(".tune") for f in files):
                fail("tune", f"no .tune file written in TILE_CACHE_DIR (found {files})")
            del cases
        finally:
            for v, val in saved.items():
                if val is None:
                    os.environ.pop(v, None)
                else:
                    os.environ[v] = val


COLD_SRC = '''
import time, torch, triton, triton.language as tl
@triton.jit
def k(out, x, cols, BLOCK: tl.constexpr):
    base = tl.program_id(0) * cols
    c = tl.arange(0, BLOCK)
    keep = c < cols
    v = tl.load(x + base + c, mask=keep, other=-float("inf"))
    e = tl.exp(v - tl.max(v, axis=0))
    tl.store(out + base + c, e / tl.sum(e, axis=0), mask=keep)
x = torch.randn(128, 1000, device="cuda"); y = torch.empty_like(x)
torch.cuda.synchronize()
t = time.perf_counter(); k[(128,)](y, x, 1000, BLOCK=1024); torch.cuda.synchronize()
print("FIRST_CALL_MS", (time.perf_counter() - t) * 1e3)
'''


def step_compile():
    """Triton's first call of a fresh softmax kernel with an empty cache,
    then with the cache warm (fresh processes); Tile's compile time of one
    softmax configuration, measured by bench/compile_time.sh where tilec
    runs and carried in BUILD/compile_time.tsv."""
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "k.py")
        with open(p, "w") as f:
            f.write(COLD_SRC)
        env = dict(os.environ, TRITON_CACHE_DIR=os.path.join(d, "cache"))
        for label in ("empty cache", "warm cache"):
            t = time.perf_counter()
            r = subprocess.run([sys.executable, p], env=env, capture_output=True, text=True)
            wall = (time.perf_counter() - t) * 1e3
            first = [ln for ln in r.stdout.splitlines() if ln.startswith("FIRST_CALL_MS")]
            if not first:
                fail(f"compile / triton {label}", r.stderr[-2000:])
                continue
            row("softmax one config, compile", f"triton first call ({label})",
                float(first[0].split()[1]), note=f"process wall {wall:.0f} ms")
    path = os.path.join(ARGS.build, "compile_time.tsv")
    if os.path.exists(path):
        for line in open(path).read().splitlines()[1:]:
            what, ms, note = (line.split("\t") + ["", ""])[:3]
            row("softmax one config, compile", what, float(ms), note=note)
    else:
        fail("compile / tile", f"{path} missing (run bench/compile_time.sh where tilec runs)")


# ---------------------------------------------------------------- tensor cores

def timed_flops(work, system, fn, ref, tol, flops, out=None, note=""):
    """timed() with TFLOP/s instead of GB/s (in the note, and in the row)."""
    try:
        ok, err = checked(work, system, fn, ref, tol, out)
        row_flops(work, system, bench(fn), flops, (note + "; " if note else "") + err, ok)
    except Exception as e:  # noqa: BLE001
        fail(f"{work} / {system}", f"{type(e).__name__}: {e}")


def row_flops(work, system, ms, flops, note, ok):
    """row() of a product: TFLOP/s in the note and in the row."""
    tf = flops / ms / 1e9
    row(work, system, ms, None, note=f"{tf:.0f} TFLOP/s; " + note, ok=ok)
    ROWS[-1]["tflops"] = tf


def define_triton_matmul():
    global tr_matmul

    @triton.jit
    def tr_matmul(c, a, b, bias, M, N, K, sam, sak, sbk, sbn, ldc, BM: tl.constexpr,
                  BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr, EPI: tl.constexpr):
        # A's (i, k) at a + i*sam + k*sak, B's (k, j) at b + k*sbk + j*sbn
        # (Triton specializes strides of 1: the row-major case compiles as
        # with row strides alone)
        pid = tl.program_id(0)
        num_m, num_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
        width = GROUP * num_n
        first = (pid // width) * GROUP
        size = min(num_m - first, GROUP)
        pm = first + (pid % width) % size
        pn = (pid % width) // size
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            at = tl.load(a + rm[:, None] * sam + (k + rk)[None, :] * sak,
                         mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
            bt = tl.load(b + (k + rk)[:, None] * sbk + rn[None, :] * sbn,
                         mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(at, bt, acc)
        if EPI:
            acc = tl.maximum(acc + tl.load(bias + rn, mask=rn < N, other=0.0)[None, :]
                             .to(tl.float32), 0.0)
        tl.store(c + rm[:, None] * ldc + rn[None, :], acc.to(c.dtype.element_ty),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


def _mm_systems(work, n, a, b, bias, out, ref, tol, epi):
    flops = 2 * n ** 3
    if epi:
        timed_flops(work, "torch eager", lambda: torch.relu(a @ b + bias), ref, tol, flops,
                    note="3 kernels")
        comp = compiled(lambda x, y, z: torch.relu(x @ y + z))
        timed_flops(work, "torch.compile", lambda: comp(a, b, bias), ref, tol, flops)
    else:
        timed_flops(work, "torch.matmul (cuBLAS)", lambda: torch.matmul(a, b), ref, tol, flops)
    for bm, bn, bk, w in configs.MATMUL_TILES:
        grid = (triton.cdiv(n, bm) * triton.cdiv(n, bn),)
        timed_flops(work, f"triton {bm}x{bn}x{bk} w{w} s3",
                    lambda: tr_matmul[grid](out, a, b, bias, n, n, n, n, 1, n, 1, n, BM=bm, BN=bn,
                                            BK=bk, GROUP=8, EPI=epi, num_warps=w,
                                            num_stages=3),
                    ref, tol, flops, out=out)
    for bm, bn, bk, w in configs.MATMUL_TILES:
        if epi:
            k = tile_kernel(f"mm_bias_relu_{bm}x{bn}x{bk}_w{w}", "matmul_bias_relu")
            args = [ptr(addr(out)), ptr(addr(a)), ptr(addr(b)), ptr(addr(bias))]
        else:
            t = "f16" if a.dtype == torch.float16 else "bf16"
            k = tile_kernel(f"matmul_{t}_{bm}x{bn}x{bk}_w{w}", "matmul")
            args = [ptr(addr(out)), ptr(addr(a)), ptr(addr(b))]
        args += [i64(n)] * 6
        timed_flops(work, f"tile {bm}x{bn}x{bk} w{w}", k.bind(args, stream()), ref, tol, flops,
                    out=out)
    for bm, bn, bk, w in configs.MATMUL_TILES if epi else ():
        # linear_relu: the same kernel in grouped program order
        k = tile_kernel(f"linear_relu_{bm}x{bn}x{bk}_w{w}", "linear_relu")
        args = [ptr(addr(out)), ptr(addr(a)), ptr(addr(b)), ptr(addr(bias))] + [i64(n)] * 6
        timed_flops(work, f"tile grouped {bm}x{bn}x{bk} w{w}", k.bind(args, stream()), ref,
                    tol, flops, out=out)


def step_matmul():
    """C = A @ B, f16 and bf16, n^3, against cuBLAS and Triton."""
    define_triton_matmul()
    for dt, t in ((torch.float16, "f16"), (torch.bfloat16, "bf16")):
        for n in configs.MATMUL_SIZES:
            try:
                a = torch.rand(n, n, device="cuda", dtype=dt) * 2 - 1
                b = torch.rand(n, n, device="cuda", dtype=dt) * 2 - 1
                out = torch.empty(n, n, device="cuda", dtype=dt)
                ref = (a.double() @ b.double())
                _mm_systems(f"matmul {t} {n}^3", n, a, b, a[0], out, ref,
                            TOL[str(dt)[6:]], False)
                del a, b, out, ref
            except Exception as e:  # noqa: BLE001
                fail(f"matmul {t} {n}", f"{type(e).__name__}: {e}\n{traceback.format_exc()}")


def step_mm_bias_relu():
    """relu(A @ B + bias) in f16: torch eager's three kernels, torch.compile,
    Triton's fused kernel, Tile's."""
    define_triton_matmul()
    for n in configs.MATMUL_SIZES:
        try:
            a = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
            b = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
            bias = torch.rand(n, device="cuda", dtype=torch.float16) * 2 - 1
            out = torch.empty(n, n, device="cuda", dtype=torch.float16)
            ref = torch.relu(a.double() @ b.double() + bias.double())
            _mm_systems(f"mm_bias_relu f16 {n}^3", n, a, b, bias, out, ref, TOL["float16"], True)
            del a, b, bias, out, ref
        except Exception as e:  # noqa: BLE001
            fail(f"mm_bias_relu {n}", f"{type(e).__name__}: {e}\n{traceback.format_exc()}")


ATTENTION_SHAPE = (4, 32, 4096)   # batch, heads, sequence


def _attention_inputs(d, causal):
    """Fresh q, k, v ([B, H, S, d] f16), the output buffer, the float32
    reference (SDPA's math backend) and the FLOP count of one forward."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    sdpa = torch.nn.functional.scaled_dot_product_attention
    B, H, S = ATTENTION_SHAPE
    q, k, v = (torch.randn(B, H, S, d, device="cuda", dtype=torch.float16) for _ in range(3))
    with sdpa_kernel(SDPBackend.MATH):
        ref = sdpa(q.float(), k.float(), v.float(), is_causal=causal)
    return q, k, v, torch.empty_like(q), ref, 4 * B * H * S * S * d // (2 if causal else 1)


def step_attention():
    """Flash-attention forward, f16, B=4 H=32 S=4096, D=64/128, causal and
    not, against torch SDPA's flash and cuDNN backends."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    sdpa = torch.nn.functional.scaled_dot_product_attention
    B, H, S = ATTENTION_SHAPE
    for d in configs.ATTENTION_D:
        for causal in (False, True):
            work = f"attention D={d} {'causal' if causal else 'full'}"
            try:
                q, k, v, out, ref, flops = _attention_inputs(d, causal)
                for name, be in (("torch SDPA flash", SDPBackend.FLASH_ATTENTION),
                                 ("torch SDPA cuDNN", SDPBackend.CUDNN_ATTENTION)):
                    def run(be=be):
                        with sdpa_kernel(be):
                            return sdpa(q, k, v, is_causal=causal)
                    timed_flops(work, name, run, ref, TOL["float16"], flops)
                scale = 1 / math.sqrt(d)
                for bm, bn, w in configs.ATTENTION_TILES:
                    kern = tile_kernel(f"attention_d{d}_{'causal' if causal else 'full'}"
                                       f"_{bm}x{bn}_w{w}", "attention")
                    args = [ptr(addr(out)), ptr(addr(q)), ptr(addr(k)), ptr(addr(v)),
                            i64(B * H), i64(S), i64(S * d), i64(d), f64(scale)]
                    timed_flops(work, f"tile {bm}x{bn} w{w}", kern.bind(args, stream()), ref,
                                TOL["float16"], flops, out=out)
                del q, k, v, out, ref
            except Exception as e:  # noqa: BLE001
                fail(work, f"{type(e).__name__}: {e}\n{traceback.format_exc()}")


# ---------------------------------------------------------------- shapes

SHAPE_POINTS = []  # dicts: family, shape, tile_ms, triton_ms, per (work units), base


def define_triton_attention():
    global tr_attention

    @triton.jit
    def tr_attention(o, q, k, v, S, stride_h, stride_s, qk_scale, D: tl.constexpr,
                     BM: tl.constexpr, BN: tl.constexpr):
        """examples/attention.tile (not causal), statement for statement."""
        start = tl.program_id(0) * BM
        base = tl.program_id(1).to(tl.int64) * stride_h
        rm = start + tl.arange(0, BM)
        rd = tl.arange(0, D)
        qt = tl.load(q + base + rm[:, None] * stride_s + rd[None, :], mask=rm[:, None] < S,
                     other=0.0)
        m_i = tl.full([BM], float("-inf"), tl.float32)
        l_i = tl.zeros([BM], tl.float32)
        acc = tl.zeros([BM, D], tl.float32)
        for n in range(0, S, BN):
            rn = n + tl.arange(0, BN)
            kt = tl.load(k + base + rn[None, :] * stride_s + rd[:, None],
                         mask=rn[None, :] < S, other=0.0)
            s = tl.dot(qt, kt)
            if n + BN > S:
                s = tl.where(rn[None, :] < S, s, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(s, 1) * qk_scale)
            p = tl.math.exp2(s * qk_scale - m_new[:, None])
            alpha = tl.math.exp2(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, 1)
            vt = tl.load(v + base + rn[:, None] * stride_s + rd[None, :],
                         mask=rn[:, None] < S, other=0.0)
            acc = tl.dot(p.to(tl.float16), vt, acc * alpha[:, None])
            m_i = m_new
        tl.store(o + base + rm[:, None] * stride_s + rd[None, :],
                 (acc / l_i[:, None]).to(tl.float16), mask=rm[:, None] < S)


SHAPE_ROUNDS = 3   # timings of each system per point, alternated; the best median counts


def _shape_pair(family, shape, base, per, work, tile_fn, triton_fn, ref, tol, out,
                nbytes=None, flops=None, torch_fn=None):
    """Times Tile's, Triton's and PyTorch's runs of one shape (checked
    first, as every row; GB/s from nbytes or TFLOP/s from flops), and
    records the point: `base` names the aligned neighbour, `per` the work
    units (elements, FLOPs) for comparing shapes. torch_fn (eager PyTorch,
    the same function however many kernels it takes) returns its result;
    the others write `out`. Each system is timed SHAPE_ROUNDS times, in
    turn, each round starting with the next system (Triton, Tile,
    PyTorch; Tile, PyTorch, Triton; ...), and its best median counts:
    kernels of 10 us moved by up to 8% between one timing and the next
    (session 21), whichever system ran first."""
    n0 = len(ROWS)
    runs = [("triton", triton_fn, out), ("tile", tile_fn, out)]
    if torch_fn:
        runs.append(("torch", torch_fn, None))
    checks, best = {}, {}
    for system, fn, dst in runs:
        try:
            checks[system] = checked(work, system, fn, ref, tol, dst)
        except Exception as e:  # noqa: BLE001
            fail(f"{work} / {system}", f"{type(e).__name__}: {e}")
    for r in range(SHAPE_ROUNDS):
        for system, fn, _dst in runs[r % len(runs):] + runs[:r % len(runs)]:
            if system not in checks:
                continue
            try:
                ms = bench(fn)
                best[system] = min(best.get(system, ms), ms)
            except Exception as e:  # noqa: BLE001
                fail(f"{work} / {system}", f"{type(e).__name__}: {e}")
                del checks[system]
    for system, _fn, _dst in runs:
        if system not in checks:
            continue
        ok, err = checks[system]
        ms, note = best[system], f"best of {SHAPE_ROUNDS} medians; {err}"
        if flops:
            row_flops(work, system, ms, flops, note, ok)
        else:
            row(work, system, ms, nbytes, note=note, ok=ok)
    got = {r["system"]: r for r in ROWS[n0:] if r["ok"]}
    if "tile" in got and "triton" in got:
        SHAPE_POINTS.append(dict(family=family, shape=shape, base=base, per=per,
                                 tile_ms=got["tile"]["ms"], triton_ms=got["triton"]["ms"],
                                 torch_ms=got["torch"]["ms"] if "torch" in got else None))


def _shapes_1d():
    n0 = configs.SHAPES_N1D
    for off in configs.SHAPES_OFFSETS:
        n = n0 + off
        x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        out = torch.empty_like(x)
        k = tile_kernel("vadd", "vadd")
        grid = (triton.cdiv(n, 1024),)
        _shape_pair("vadd f32", f"n={n}", f"n={n0}", n, f"shapes vadd n={n}",
                    k.bind([ptr(addr(out)), ptr(addr(x)), ptr(addr(y)), i64(n)], stream()),
                    lambda: tr_add[grid](out, x, y, n, BLOCK=1024, num_warps=4),
                    x + y, 0.0, out, nbytes=3 * n * 4, torch_fn=lambda: torch.add(x, y))
        a, b = 1.5, -0.25
        ref = torch.nn.functional.gelu(x.double() * a + b)
        k = tile_kernel("bias_gelu_f32_b1024_w4", "bias_gelu")
        _shape_pair("bias_gelu f32", f"n={n}", f"n={n0}", n, f"shapes bias_gelu n={n}",
                    k.bind([ptr(addr(out)), ptr(addr(x)), f64(a), f64(b), i64(n)], stream()),
                    lambda: tr_bias_gelu[grid](out, x, a, b, n, BLOCK=1024, num_warps=4),
                    ref, TOL["float32"], out, nbytes=2 * n * 4,
                    torch_fn=lambda: torch.nn.functional.gelu(x * a + b))
        del x, y, out


def _row_shapes():
    """(rows, cols) of the row-wise sweeps: cols around SHAPES_ROWS, then
    other row counts."""
    m0 = configs.SHAPES_ROWS
    return ([(m0, m0 + off) for off in configs.SHAPES_OFFSETS]
            + [(m, m0) for m in configs.SHAPES_ROW_COUNTS])


def _row_base(rows, cols):
    """The aligned neighbour of a (rows, cols) point: the next multiple of
    16 of the one that differs from SHAPES_ROWS (cols first)."""
    m0 = configs.SHAPES_ROWS
    if cols != m0:
        return f"{rows}x{m0}"
    return f"{-(-rows // 16) * 16 if rows < m0 else m0}x{cols}"


def _shapes_softmax():
    for rows, n in _row_shapes():
        x = torch.randn(rows, n, device="cuda")
        out = torch.empty_like(x)
        block = configs.next_pow2(n)
        w = configs.softmax_warps(block)
        name = f"softmax_f32_{block}_w{w}" if block == 4096 else f"shapes_softmax_f32_b{block}_w{w}"
        k = tile_kernel(name, "softmax")
        _shape_pair("softmax f32", f"{rows}x{n}", _row_base(rows, n), rows * n, f"shapes softmax {rows}x{n}",
                    k.bind([ptr(addr(out)), ptr(addr(x)), i64(rows), i64(n), i64(x.stride(0))],
                           stream()),
                    lambda: tr_softmax[(rows,)](out, x, n, x.stride(0), BLOCK=block, num_warps=w),
                    torch.softmax(x.double(), dim=-1), TOL["float32"], out,
                    nbytes=2 * rows * n * 4, torch_fn=lambda: torch.softmax(x, dim=-1))
        del x, out


def _shapes_layernorm():
    eps = 1e-5
    for rows, n in _row_shapes():
        dt = torch.float16
        x = torch.randn(rows, n, device="cuda", dtype=dt)
        w_, b_ = torch.randn(n, device="cuda", dtype=dt), torch.randn(n, device="cuda", dtype=dt)
        y = torch.empty_like(x)
        ref = torch.nn.functional.layer_norm(x.double(), (n,), w_.double(), b_.double(), eps)
        block = configs.next_pow2(n)
        w = configs.layernorm_warps(block)
        k = tile_kernel(f"layernorm_f16_{block}_w{w}", "layernorm")
        _shape_pair("layernorm f16", f"{rows}x{n}", _row_base(rows, n), rows * n,
                    f"shapes layernorm {rows}x{n}",
                    k.bind([ptr(addr(y)), ptr(addr(x)), ptr(addr(w_)), ptr(addr(b_)), i64(rows),
                            i64(n), i64(x.stride(0)), f64(eps)], stream()),
                    lambda: tr_layernorm[(rows,)](y, x, w_, b_, n, x.stride(0), eps,
                                                  BLOCK=block, num_warps=w),
                    ref, TOL["float16"], y, nbytes=2 * rows * n * 2,
                    torch_fn=lambda: torch.nn.functional.layer_norm(x, (n,), w_, b_, eps))
        del x, y, ref


def _shapes_transpose():
    n0 = configs.SHAPES_TRANSPOSE
    bm, bn, w = configs.TRANSPOSE_TILES[0]
    for off in configs.SHAPES_OFFSETS:
        n = n0 + off
        x = torch.randn(n, n, device="cuda")
        out = torch.empty_like(x)
        k = tile_kernel(f"transpose_{bm}x{bn}_w{w}", "transpose")
        grid = (triton.cdiv(n, bm), triton.cdiv(n, bn))
        _shape_pair("transpose f32", f"{n}x{n}", f"{n0}x{n0}", n * n, f"shapes transpose {n}",
                    k.bind([ptr(addr(out)), ptr(addr(x)), i64(n), i64(n), i64(n), i64(n)],
                           stream()),
                    lambda: tr_transpose[grid](out, x, n, n, n, n, BM=bm, BN=bn, num_warps=w),
                    x.t().contiguous(), 0.0, out, nbytes=2 * n * n * 4,
                    torch_fn=lambda: x.t().contiguous())
        del x, out


def _matmul_shapes():
    """(M, N, K, aligned neighbour): n^3 around SHAPES_MATMUL, then M alone
    ragged (a batch of tokens: N and K are model sizes)."""
    n0 = configs.SHAPES_MATMUL
    out = [(n0 + o, n0 + o, n0 + o, f"{n0}^3") for o in configs.SHAPES_OFFSETS]
    return out + [(n0 + o, n0, n0, f"{n0}^3") for o in configs.SHAPES_OFFSETS if o]


def _shapes_matmul():
    define_triton_matmul()
    bm, bn, bk, w = configs.SHAPES_MATMUL_TILE
    for M, N, K, base in _matmul_shapes():
        a = torch.rand(M, K, device="cuda", dtype=torch.float16) * 2 - 1
        b = torch.rand(K, N, device="cuda", dtype=torch.float16) * 2 - 1
        out = torch.empty(M, N, device="cuda", dtype=torch.float16)
        k = tile_kernel(f"matmul_f16_{bm}x{bn}x{bk}_w{w}", "matmul")
        grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
        shape = f"{M}^3" if M == N == K else f"M={M}"
        flops = 2 * M * N * K
        _shape_pair("matmul f16", shape, base, flops, f"shapes matmul {shape}",
                    k.bind([ptr(addr(out)), ptr(addr(a)), ptr(addr(b)), i64(M), i64(N), i64(K),
                            i64(K), i64(N), i64(N)], stream()),
                    lambda: tr_matmul[grid](out, a, b, a, M, N, K, K, 1, N, 1, N, BM=bm, BN=bn,
                                            BK=bk, GROUP=8, EPI=False, num_warps=w,
                                            num_stages=3),
                    a.double() @ b.double(), TOL["float16"], out, flops=flops,
                    torch_fn=lambda: torch.matmul(a, b))
        del a, b, out


def define_triton_xent():
    """examples/cross_entropy.tile's algorithm in Triton: an online
    logsumexp over BLOCK chunks, then the gradient chunk by chunk."""
    global tr_xent

    @triton.jit
    def tr_xent(loss, grad, logits, target, cols, stride, scale, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        base = row * stride
        t = tl.load(target + row)
        valid = t != -100
        target_logit = tl.load(logits + base + t, mask=valid, other=0.0)
        mx = -float("inf")
        s = 0.0
        for c0 in range(0, cols, BLOCK):
            c = c0 + tl.arange(0, BLOCK)
            v = tl.load(logits + base + c, mask=c < cols, other=-float("inf"))
            new_mx = tl.maximum(mx, tl.max(v, axis=0))
            s = s * tl.exp(mx - new_mx) + tl.sum(tl.exp(v - new_mx), axis=0)
            mx = new_mx
        lse = mx + tl.log(s)
        tl.store(loss + row, tl.where(valid, lse - target_logit, 0.0))
        for c0 in range(0, cols, BLOCK):
            c = c0 + tl.arange(0, BLOCK)
            m = c < cols
            v = tl.load(logits + base + c, mask=m, other=0.0)
            g = (tl.exp(v - lse) - tl.where(c == t, 1.0, 0.0)) * scale
            tl.store(grad + base + c, tl.where(valid, g, 0.0), mask=m)


def _shapes_xent():
    define_triton_xent()
    block, w = configs.SHAPES_XENT_TILE
    rows, v0 = configs.SHAPES_XENT_ROWS, configs.SHAPES_XENT_VOCAB
    for off in configs.SHAPES_OFFSETS:
        n = v0 + off
        x = torch.randn(rows, n, device="cuda")
        t = torch.randint(0, n, (rows,), device="cuda", dtype=torch.int32)
        t[::97] = -100
        loss = torch.empty(rows, device="cuda")
        grad = torch.empty_like(x)
        scale = 1.0 / rows
        valid = t != -100
        tgt = t.clamp(min=0).long()[:, None]
        xd = x.double()
        lse = torch.logsumexp(xd, 1)
        ref_loss = torch.where(valid, lse - xd.gather(1, tgt)[:, 0], 0.0)
        ref = torch.softmax(xd, 1).scatter_add(1, tgt, -torch.ones_like(tgt, dtype=xd.dtype))
        ref = torch.where(valid[:, None], ref * scale, 0.0)
        k = tile_kernel("shapes_xent_b4096_w8", "cross_entropy")
        work = f"shapes cross_entropy {rows}x{n}"
        _shape_pair("cross_entropy f32", f"{rows}x{n}", f"{rows}x{v0}", rows * n, work,
                    k.bind([ptr(addr(loss)), ptr(addr(grad)), ptr(addr(x)), ptr(addr(t)),
                            i64(rows), i64(n), i64(n), f64(scale)], stream()),
                    lambda: tr_xent[(rows,)](loss, grad, x, t, n, n, scale, BLOCK=block,
                                             num_warps=w),
                    ref, TOL["float32"], grad, nbytes=2 * rows * n * 4,
                    torch_fn=lambda: torch.where(
                        valid[:, None],
                        torch.softmax(x, 1).scatter_add_(1, tgt, -torch.ones_like(x[:, :1]))
                        * scale, 0.0))
        # the losses of the last run (Tile's), against float64
        err = ((loss.double() - ref_loss).abs() / ref_loss.abs().clamp(min=1)).max().item()
        if not err <= 1e-5:
            fail(work, f"loss relative error {err:.2e}")
        del x, grad, ref


def _shapes_lm_head():
    """x @ W.T over a vocabulary of odd size: only the output's row
    stride is odd, which the product's loop never reads."""
    define_triton_matmul()
    bm, bn, bk, w = configs.SHAPES_MATMUL_TILE
    M, K, vocabs = configs.SHAPES_LM_HEAD
    k = tile_kernel(configs.mmlayout_bundle("f16", "nk", bm, bn, bk, w), "matmul_bt")
    for N in vocabs:
        x = torch.rand(M, K, device="cuda", dtype=torch.float16) * 2 - 1
        wt = torch.rand(N, K, device="cuda", dtype=torch.float16) * 2 - 1
        out = torch.empty(M, N, device="cuda", dtype=torch.float16)
        grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
        flops = 2 * M * N * K
        shape = f"{M}x{K}x{N}"
        _shape_pair("lm_head f16", shape, f"{M}x{K}x{vocabs[-1]}", flops,
                    f"shapes lm_head {shape}",
                    k.bind([ptr(addr(out)), ptr(addr(x)), ptr(addr(wt)), i64(M), i64(N), i64(K),
                            i64(K), i64(K), i64(N)], stream()),
                    lambda: tr_matmul[grid](out, x, wt, x, M, N, K, K, 1, 1, K, N, BM=bm, BN=bn,
                                            BK=bk, GROUP=8, EPI=False, num_warps=w,
                                            num_stages=3),
                    x.double() @ wt.double().T, TOL["float16"], out, flops=flops,
                    torch_fn=lambda: torch.nn.functional.linear(x, wt))
        del x, wt, out


def _shapes_attention():
    from torch.nn.attention import SDPBackend, sdpa_kernel
    define_triton_attention()
    sdpa = torch.nn.functional.scaled_dot_product_attention
    B, H, _ = ATTENTION_SHAPE
    d = 64
    bm, bn, w = configs.SHAPES_ATTENTION_TILE
    scale = 1 / math.sqrt(d)
    k_ = tile_kernel(f"attention_d{d}_full_{bm}x{bn}_w{w}", "attention")
    for S in configs.SHAPES_ATTENTION_S:
        q, k, v = (torch.randn(B, H, S, d, device="cuda", dtype=torch.float16) for _ in range(3))
        out = torch.empty_like(q)
        with sdpa_kernel(SDPBackend.MATH):
            ref = sdpa(q.float(), k.float(), v.float())
        flops = 4 * B * H * S * S * d
        base = {1000: 1008, 1023: 1024, 2000: 2048, 4095: 4096}.get(S, S)
        grid = (triton.cdiv(S, bm), B * H)
        _shape_pair("attention D=64", f"S={S}", f"S={base}", flops, f"shapes attention S={S}",
                    k_.bind([ptr(addr(out)), ptr(addr(q)), ptr(addr(k)), ptr(addr(v)),
                             i64(B * H), i64(S), i64(S * d), i64(d), f64(scale)], stream()),
                    lambda: tr_attention[grid](out, q, k, v, S, S * d, d,
                                               scale * 1.4426950408889634, D=d, BM=bm, BN=bn,
                                               num_warps=w, num_stages=2),
                    ref, TOL["float16"], out, flops=flops, torch_fn=lambda: sdpa(q, k, v))
        del q, k, v, out, ref


def shape_summary():
    """Per point: Triton ms / Tile ms, and Tile's work per ms over its
    aligned neighbour's; geomean of the first. Lines of Markdown."""
    by = {(p["family"], p["shape"]): p for p in SHAPE_POINTS}
    lines = ["| workload | shape | Tile µs | Triton µs | Tile ÷ Triton | Tile ÷ aligned neighbour "
             "| PyTorch µs | Tile ÷ PyTorch |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    logs = []
    for p in SHAPE_POINTS:
        rt = p["triton_ms"] / p["tile_ms"]
        logs.append(math.log(rt))
        nb = by.get((p["family"], p["base"]))
        rel = (p["per"] / p["tile_ms"]) / (nb["per"] / nb["tile_ms"]) if nb else None
        p["ratio"], p["neighbour"] = rt, rel
        pt = p.get("torch_ms")
        lines.append(f"| {p['family']} | {p['shape']} | {p['tile_ms'] * 1e3:.1f} | "
                     f"{p['triton_ms'] * 1e3:.1f} | {rt:.3f} | {fmt(rel, '.3f')} | "
                     f"{fmt(pt and pt * 1e3, '.1f')} | {fmt(pt and pt / p['tile_ms'], '.3f')} |")
    if logs:
        vs_torch = [math.log(p["torch_ms"] / p["tile_ms"]) for p in SHAPE_POINTS
                    if p.get("torch_ms")]
        lines.append(f"\ngeomean Tile ÷ Triton over {len(logs)} points: "
                     f"{math.exp(sum(logs) / len(logs)):.3f}; lowest "
                     f"{min(p['ratio'] for p in SHAPE_POINTS):.3f}; lowest against the "
                     f"aligned neighbour {min(p['neighbour'] or 9 for p in SHAPE_POINTS):.3f}"
                     + (f"; geomean Tile ÷ PyTorch (eager) over {len(vs_torch)} points: "
                        f"{math.exp(sum(vs_torch) / len(vs_torch)):.3f}" if vs_torch else ""))
    return lines


def step_shapes():
    """Issue 13's sweep: every workload at ragged sizes beside Triton in
    the same configuration (configs.SHAPES_*); a ratio table and chart."""
    for part in (_shapes_1d, _shapes_softmax, _shapes_layernorm, _shapes_xent,
                 _shapes_transpose, _shapes_matmul, _shapes_lm_head, _shapes_attention):
        if ARGS.shapes and part.__name__[len("_shapes_"):] not in ARGS.shapes.split(","):
            continue
        try:
            part()
        except Exception as e:  # noqa: BLE001
            fail(f"shapes {part.__name__}", f"{type(e).__name__}: {e}\n{traceback.format_exc()}")
        torch.cuda.empty_cache()
    lines = shape_summary()
    print("\n".join(lines), flush=True)
    if ARGS.out:
        with open(os.path.join(ARGS.out, "shapes.md"), "w") as f:
            f.write("\n".join(lines) + "\n")
        try:
            print(f"chart: {charts.shapes_chart(SHAPE_POINTS, os.path.join(ARGS.out, 'shapes.png'))}")
        except Exception as e:  # noqa: BLE001
            print(f"shapes chart not drawn: {type(e).__name__}: {e}", flush=True)


def step_sweep():
    """The tensor-core sweep (configs.SWEEP_*): matmul f16 at MATMUL_SIZES
    over tile shapes, warps and stages, beside cuBLAS and Triton's kernel
    (wgmma) at the same tile, warps and stages; attention D=64 tiles beside
    SDPA flash."""
    define_triton_matmul()
    for n in configs.MATMUL_SIZES:
        work = f"sweep matmul f16 {n}^3"
        try:
            a = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
            b = torch.rand(n, n, device="cuda", dtype=torch.float16) * 2 - 1
            out = torch.empty(n, n, device="cuda", dtype=torch.float16)
            ref = a.double() @ b.double()
            tol, flops = TOL["float16"], 2 * n ** 3
            timed_flops(work, "torch.matmul (cuBLAS)", lambda: torch.matmul(a, b), ref, tol,
                        flops)
            for bm, bn, bk, w, s in configs.SWEEP_MATMUL:
                cfg = f"{bm}x{bn}x{bk} w{w} s{s}"
                grid = (triton.cdiv(n, bm) * triton.cdiv(n, bn),)
                try:
                    timed_flops(work, f"triton {cfg}",
                                lambda: tr_matmul[grid](out, a, b, a, n, n, n, n, 1, n, 1, n,
                                                        BM=bm, BN=bn, BK=bk, GROUP=8,
                                                        EPI=False, num_warps=w, num_stages=s),
                                ref, tol, flops, out=out)
                except Exception as e:  # noqa: BLE001
                    fail(f"{work} / triton {cfg}", f"{type(e).__name__}: {e}")
                k = tile_kernel(f"sweep_matmul_f16_{bm}x{bn}x{bk}_w{w}_s{s}", "matmul")
                args = [ptr(addr(out)), ptr(addr(a)), ptr(addr(b))] + [i64(n)] * 6
                timed_flops(work, f"tile {cfg}", k.bind(args, stream()), ref, tol, flops,
                            out=out)
            del a, b, out, ref
        except Exception as e:  # noqa: BLE001
            fail(work, f"{type(e).__name__}: {e}\n{traceback.format_exc()}")
    from torch.nn.attention import SDPBackend, sdpa_kernel
    sdpa = torch.nn.functional.scaled_dot_product_attention
    B, H, S = ATTENTION_SHAPE
    d = configs.SWEEP_ATTENTION_D
    for causal in (False, True):
        work = f"sweep attention D={d} {'causal' if causal else 'full'}"
        try:
            q, k, v, out, ref, flops = _attention_inputs(d, causal)

            def flash():
                with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                    return sdpa(q, k, v, is_causal=causal)
            timed_flops(work, "torch SDPA flash", flash, ref, TOL["float16"], flops)
            for bm, bn, w, s in configs.SWEEP_ATTENTION:
                kern = tile_kernel(f"sweep_attention_d{d}_{'causal' if causal else 'full'}"
                                   f"_{bm}x{bn}_w{w}_s{s}", "attention")
                args = [ptr(addr(out)), ptr(addr(q)), ptr(addr(k)), ptr(addr(v)),
                        i64(B * H), i64(S), i64(S * d), i64(d), f64(1 / math.sqrt(d))]
                timed_flops(work, f"tile {bm}x{bn} w{w} s{s}", kern.bind(args, stream()), ref,
                            TOL["float16"], flops, out=out)
            del q, k, v, out, ref
        except Exception as e:  # noqa: BLE001
            fail(work, f"{type(e).__name__}: {e}\n{traceback.format_exc()}")


STEPS = ["copy", "vadd", "bias_gelu", "softmax", "layernorm", "transpose", "tune", "matmul",
         "mm_bias_relu", "attention", "launch", "compile"]
# Steps run only when named.
EXTRA_STEPS = ["sweep", "shapes"]


def dry_run(steps):
    """No GPU, no torch: every bundle loads and has its kernel (the
    sweep's too when `sweep` is named)."""
    bad = 0
    bundles = [b[:5] for b in configs.TILE_BUNDLES]
    if "sweep" in steps:
        bundles = [b[:5] for b in configs.SWEEP_BUNDLES]
    for name, _src, kernel, _d, _w in bundles:
        try:
            k = tile_kernel(name, kernel)
            print(f"ok  {name:28s} {k.signature}")
        except Exception as e:  # noqa: BLE001
            bad += 1
            print(f"BAD {name}: {e}")
    print(f"dry run: {len(bundles) - bad} of {len(bundles)} bundles load")
    return 1 if bad else 0


def main():
    global ARGS, LIB
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(os.path.dirname(HERE), "build-gpu"))
    ap.add_argument("--out", default=os.environ.get("OUT"))
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--shapes", default="",
                    help="step shapes: only these parts (comma list of 1d, softmax, "
                         "layernorm, xent, transpose, matmul, attention)")
    ap.add_argument("--user", default="",
                    help="step user: only these workloads (comma list of rope, gelu_bwd, "
                         "top1, rmsnorm, softmax_rows, swiglu, quant_i8, quant_f8, cumsum, heat2, "
                         "jacobi)")
    ap.add_argument("steps", nargs="*", choices=STEPS + EXTRA_STEPS + [[]], default=[])
    ARGS = ap.parse_args()
    LIB = Libtile(os.path.join(ARGS.build, "libtile.so"))
    if ARGS.dry_run:
        return dry_run(ARGS.steps)
    setup_torch()
    LIB.init()
    print(f"torch {torch.__version__}, triton {triton.__version__}, "
          f"{torch.cuda.get_device_name()}", flush=True)
    for s in ARGS.steps or STEPS:
        try:
            globals()["step_" + s]()
        except Exception as e:  # noqa: BLE001
            fail(s, f"{type(e).__name__}: {e}\n{traceback.format_exc()}")
        torch.cuda.empty_cache()
        draw_charts()
        write_results()   # after each step: a run cut short keeps what it timed
    print_table()
    return 1 if FAILURES or not all(r["ok"] for r in ROWS) else 0


# ---------------------------------------------------------------- column sums
# Step `colsum` (run only when named): issue 13's sums across rows. Kept
# apart from the other steps: its Triton kernel, its workload and its
# registration are all here.

def define_colsum_triton():
    @triton.jit
    def tr_colsum(out, x, rows, cols, stride, BM: tl.constexpr, BN: tl.constexpr):
        c = tl.program_id(0) * BN + tl.arange(0, BN)
        r = tl.arange(0, BM)
        acc = tl.zeros([BN], dtype=tl.float32)
        for i in range(0, rows, BM):
            keep = ((i + r)[:, None] < rows) & (c[None, :] < cols)
            t = tl.load(x + (i + r)[:, None] * stride + c[None, :], mask=keep, other=0.0)
            acc += tl.sum(t.to(tl.float32), axis=0)
        tl.store(out + c, acc, mask=c < cols)

    return tr_colsum


def step_colsum():
    """out[c] = sum over rows of x[r, c] (f32 sums) for configs.COLSUM_SHAPES
    and COLSUM_TYPES: torch.sum(x, 0), then for each (BM, BN, warps) of
    COLSUM_TILES Triton's and Tile's same loop over row blocks."""
    tr_colsum = define_colsum_triton()
    for rows, cols in configs.COLSUM_SHAPES:
        for dt, t in ((torch.float32, "f32"), (torch.float16, "f16")):
            if t not in configs.COLSUM_TYPES:
                continue
            work = f"colsum {t} {rows}x{cols}"
            try:
                x = torch.randn(rows, cols, device="cuda", dtype=dt)
                out = torch.empty(cols, device="cuda", dtype=torch.float32)
                ref = x.double().sum(0)
                nbytes, tol = rows * cols * x.element_size() + cols * 4, TOL["float32"]
                timed(work, "torch eager", lambda: torch.sum(x, 0, dtype=torch.float32), ref,
                      tol, nbytes)
                for bm, bn, w in configs.COLSUM_TILES:
                    grid = (triton.cdiv(cols, bn),)
                    timed(work, f"triton {bm}x{bn} w{w}",
                          lambda: tr_colsum[grid](out, x, rows, cols, x.stride(0), BM=bm, BN=bn,
                                                  num_warps=w), ref, tol, nbytes, out=out)
                    k = tile_kernel(configs.colsum_bundle(t, bm, bn, w), "colsum")
                    launch = k.bind([ptr(addr(out)), ptr(addr(x)), i64(rows), i64(cols),
                                     i64(x.stride(0))], stream())
                    timed(work, f"tile {bm}x{bn} w{w}", launch, ref, tol, nbytes, out=out)
                del x, out, ref
            except Exception as e:  # noqa: BLE001
                fail(work, f"{type(e).__name__}: {e}\n{traceback.format_exc()}")


EXTRA_STEPS.append("colsum")


# ---------------------------------------------------------------- user kernels
# Step `user` (run only when named): issue 17's seven user kernels beside
# Triton and PyTorch eager (bench/user_bench.py; the Tile variants are
# configs.USER_TILES, --user picks workloads).

def step_user():
    import user_bench
    user_bench.run(sys.modules[__name__], ARGS.user)


EXTRA_STEPS.append("user")


# ---------------------------------------------------------------- operand layouts
# Step `mmlayout` (run only when named): f32 (TF32) and f16 products with
# B stored [K, N] and [N, K], and with A stored [K, M] (`x.T @ g`),
# beside cuBLAS and Triton (tr_matmul with
# B's strides, the configurations Tile's bundles have; configs.MMLAYOUT_*).

def step_mmlayout():
    """C = A @ B, f32 through TF32 and f16, B stored [K, N] (x @ w) and
    [N, K] (x @ w.T), A stored [K, M] (x.T @ g): cuBLAS (TF32 allowed for f32), Triton and Tile in
    the same configurations."""
    define_triton_matmul()
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = True
    try:
        for t, tiles in configs.MMLAYOUT_TILES.items():
            dt = torch.float32 if t == "f32" else torch.float16
            for n in configs.MMLAYOUT_SIZES:
                for lay, _src, kern in configs.MMLAYOUT_KERNELS:
                    ops = "A[km] B[kn]" if lay == "tn" else f"B[{lay}]"
                    work = f"mm {'tf32' if t == 'f32' else t} {ops} {n}^3"
                    try:
                        _mmlayout_one(work, t, dt, n, lay, kern, tiles)
                    except Exception as e:  # noqa: BLE001
                        fail(work, f"{type(e).__name__}: {e}\n{traceback.format_exc()}")
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved


def _mmlayout_one(work, t, dt, n, lay, kern, tiles):
    as_ = torch.rand(n, n, device="cuda", dtype=dt) * 2 - 1   # as stored
    bs = torch.rand(n, n, device="cuda", dtype=dt) * 2 - 1
    a = as_.t() if lay == "tn" else as_                       # the [M, K] operand
    b = bs.t() if lay == "nk" else bs                         # the [K, N] operand
    out = torch.empty(n, n, device="cuda", dtype=dt)
    ref = a.double() @ b.double()
    tol, flops = 5e-3, 2 * n ** 3
    timed_flops(work, "torch.matmul (cuBLAS)", lambda: torch.matmul(a, b), ref, tol, flops)
    for bm, bn, bk, w in tiles:
        grid = (triton.cdiv(n, bm) * triton.cdiv(n, bn),)
        timed_flops(work, f"triton {bm}x{bn}x{bk} w{w} s3",
                    lambda: tr_matmul[grid](out, a, b, a, n, n, n, a.stride(0), a.stride(1),
                                            b.stride(0), b.stride(1), n, BM=bm, BN=bn, BK=bk,
                                            GROUP=8, EPI=False, num_warps=w, num_stages=3),
                    ref, tol, flops, out=out)
    for bm, bn, bk, w in tiles:
        k = tile_kernel(configs.mmlayout_bundle(t, lay, bm, bn, bk, w), kern)
        args = [ptr(addr(out)), ptr(addr(as_)), ptr(addr(bs))] + [i64(n)] * 6
        timed_flops(work, f"tile {bm}x{bn}x{bk} w{w}", k.bind(args, stream()), ref, tol,
                    flops, out=out)
    del a, as_, bs, b, out, ref


EXTRA_STEPS.append("mmlayout")


# ---------------------------------------------------------------- FP8 products
# Step `fp8mm` (run only when named): C = A @ B^T in f8e4m3, B stored
# [N, K] (the layout torch._scaled_mm takes), bf16 out, per-tensor scales
# of 1 (torch._scaled_mm's scale_a and scale_b; Tile's `scale` argument;
# Triton's kernel has no scale), beside Triton in the same configurations.

def step_fp8mm():
    """FP8 e4m3 products at n^3 for n in configs.FP8MM_SIZES."""
    define_triton_matmul()
    for n in configs.FP8MM_SIZES:
        work = f"mm e4m3 B[nk] {n}^3"
        try:
            _fp8mm_one(work, n)
        except Exception as e:  # noqa: BLE001
            fail(work, f"{type(e).__name__}: {e}\n{traceback.format_exc()}")


def _fp8mm_one(work, n):
    f8 = torch.float8_e4m3fn
    a = (torch.rand(n, n, device="cuda") * 2 - 1).to(f8)
    bs = (torch.rand(n, n, device="cuda") * 2 - 1).to(f8)   # as stored: [N, K]
    one = torch.ones((), device="cuda")
    out = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    ref = a.double() @ bs.double().t()
    tol, flops = 1e-2, 2 * n ** 3
    timed_flops(work, "torch._scaled_mm (cuBLAS)",
                lambda: torch._scaled_mm(a, bs.t(), scale_a=one, scale_b=one,
                                         out_dtype=torch.bfloat16), ref, tol, flops)
    for bm, bn, bk, w, s in configs.FP8MM_TILES:
        grid = (triton.cdiv(n, bm) * triton.cdiv(n, bn),)
        timed_flops(work, f"triton {bm}x{bn}x{bk} w{w} s{s}",
                    lambda: tr_matmul[grid](out, a, bs, a, n, n, n, n, 1, 1, n, n, BM=bm, BN=bn,
                                            BK=bk, GROUP=8, EPI=False, num_warps=w,
                                            num_stages=s),
                    ref, tol, flops, out=out)
    for bm, bn, bk, w, s in configs.FP8MM_TILES:
        k = tile_kernel(configs.fp8mm_bundle(bm, bn, bk, w, s), "matmul_f8")
        args = [ptr(addr(out)), ptr(addr(a)), ptr(addr(bs))] + [i64(n)] * 6 + [f64(1.0)]
        timed_flops(work, f"tile {bm}x{bn}x{bk} w{w} s{s}", k.bind(args, stream()), ref, tol,
                    flops, out=out)
    del a, bs, out, ref


EXTRA_STEPS.append("fp8mm")

if __name__ == "__main__":
    sys.exit(main())
