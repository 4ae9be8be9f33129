"""user_bench — bench.py's step `user`: issue 17's seven user kernels
(tests/gpu/ops/user.tile: RoPE in place, GELU backward, top-1 of a
log-softmax, residual add + RMSNorm over 5120 columns, SwiGLU with two
products, int8 row quantization, row cumsum) on model-like shapes, Tile
beside Triton's same algorithm at the same blocks and warps and PyTorch
eager, in one process.

    python3 bench/bench.py --build BUILD --out DIR user [--user rmsnorm,swiglu]

Each workload is one function here: fresh random inputs, a float64
reference computed from them with torch, then every system checked (its
outputs poisoned first: NaN, or a value the kernel never writes for
integers) and timed with bench.py's bench() (triton.testing.do_bench:
CUDA events, median). A workload with several outputs (RMSNorm's y and
h, top-1's value and index, quantization's q and scale) checks them all;
the row's note gives the worst relative error. The Tile variants of a
workload come from configs.USER_TILES (one bundle each, built by
build_bundles.py): adding a variant there is all it takes for it to run
here, since every variant of a workload takes the same parameters. The
Triton variants are listed beside each workload's Triton kernel below.
"""
import math
import traceback

import configs

B = None           # the bench module (bench.py): timing, rows, Tile loading
torch = triton = tl = None
ORDER = ["rope", "gelu_bwd", "top1", "rmsnorm", "softmax_rows", "swiglu", "quant_i8", "quant_f8",
         "cumsum", "heat2", "jacobi"]


# ---------------------------------------------------------------- checks

def _poison(t):
    if t.dtype.is_floating_point:
        t.fill_(float("nan"))
    elif t.dtype == torch.int8:
        t.fill_(-128)              # quant_i8 clamps to [-127, 127]
    else:
        t.fill_(-1)                # indices are >= 0


def _err(got, ref, exact):
    """Relative error (bench.relerr) for floats; for integers the largest
    |got - ref| (a poisoned element counts as 1000)."""
    if got.dtype.is_floating_point:
        return B.relerr(got, ref)
    d = (got.long() - ref.long()).abs()
    bad = (got.long() == -128) if got.dtype == torch.int8 else (got.long() < 0)
    return 1000.0 if bad.any() else float(d.max().item()) if d.numel() else 0.0


def _timed(work, system, fn, checks, nbytes=None, flops=None, prep=None):
    """Checks fn's outputs then times fn. checks: (out, ref, tol) with out
    a tensor fn writes (poisoned first) or, for systems that return their
    results, an index into fn's return value (a tensor or a tuple).
    prep, when given, runs before the check only (RoPE's input restored
    before its in-place rotation)."""
    try:
        for out, _ref, _tol in checks:
            if not isinstance(out, int):
                _poison(out)
        if prep:
            prep()
        res = fn()
        torch.cuda.synchronize()
        if not isinstance(res, tuple):
            res = (res,)
        ok, worst = True, 0.0
        for out, ref, tol in checks:
            got = res[out] if isinstance(out, int) else out
            e = _err(got, ref, tol == 0)
            worst = max(worst, e)
            if not e <= tol:
                ok = False
                print(f"CHECK FAILED: {work} {system}: error {e:.3g} > {tol:g}", flush=True)
        ms = B.bench(fn)
        note = f"err {worst:.1e}"
        if flops:
            tf = flops / ms / 1e9
            B.row(work, system, ms, None, note=f"{tf:.0f} TFLOP/s; " + note, ok=ok)
            B.ROWS[-1]["tflops"] = tf
        else:
            B.row(work, system, ms, nbytes, note=note, ok=ok)
    except Exception as e:  # noqa: BLE001
        B.fail(f"{work} / {system}", f"{type(e).__name__}: {e}")


def _tile(work, name, args, checks, **kw):
    """Every Tile variant of workload `name` (configs.USER_TILES) with the
    same launch arguments."""
    for label, _src, kernel, _defs, _w in configs.USER_TILES[name]:
        k = B.tile_kernel(configs.user_bundle(name, label), kernel)
        _timed(work, f"tile {label}", k.bind(args, B.stream()), checks, **kw)


def _p(t):
    return B.ptr(B.addr(t))


# ---------------------------------------------------------------- Triton

def define_triton():
    """The seven algorithms as a Triton user writes them, each the Tile
    kernel's line for line."""
    from triton.language.extra import libdevice
    g = {}

    @triton.jit
    def rope(x, cs, sn, tokens, heads, d, BH: tl.constexpr, HALF: tl.constexpr):
        t = tl.program_id(0)
        half = d // 2
        h = tl.program_id(1) * BH + tl.arange(0, BH)
        j = tl.arange(0, HALF)
        m = (h[:, None] < heads) & (j[None, :] < half)
        p = x + (t * heads + h[:, None]) * d + j[None, :]
        c = tl.load(cs + t * half + j, mask=j < half, other=0.0)
        s = tl.load(sn + t * half + j, mask=j < half, other=0.0)
        x1 = tl.load(p, mask=m).to(tl.float32)
        x2 = tl.load(p + half, mask=m).to(tl.float32)
        tl.store(p, (x1 * c - x2 * s).to(tl.float16), mask=m)
        tl.store(p + half, (x2 * c + x1 * s).to(tl.float16), mask=m)

    @triton.jit
    def gelu_bwd(dx, dy, x, n, BLOCK: tl.constexpr):
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = i < n
        v = tl.load(x + i, mask=m)
        cdf = 0.5 * (1.0 + tl.math.erf(v * 0.7071067811865476))
        pdf = tl.exp(-0.5 * v * v) * 0.3989422804014327
        tl.store(dx + i, tl.load(dy + i, mask=m) * (cdf + v * pdf), mask=m)

    @triton.jit
    def top1(val, idx, x, rows, cols, BLOCK: tl.constexpr):
        r = tl.program_id(0)
        c = tl.arange(0, BLOCK)
        v = tl.load(x + r * cols + c, mask=c < cols, other=-float("inf"))
        mx = tl.max(v, 0)
        lse = mx + tl.log(tl.sum(tl.exp(v - mx), 0))
        tl.store(val + r, mx - lse)
        tl.store(idx + r, tl.argmax(v, 0))

    @triton.jit
    def rmsnorm(y, h_out, x, res, w, rows, cols, eps, BLOCK: tl.constexpr):
        base = tl.program_id(0) * cols
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        for c0 in range(0, cols, BLOCK):
            c = c0 + tl.arange(0, BLOCK)
            m = c < cols
            h = (tl.load(x + base + c, mask=m, other=0.0).to(tl.float32)
                 + tl.load(res + base + c, mask=m, other=0.0).to(tl.float32))
            tl.store(h_out + base + c, h.to(tl.bfloat16), mask=m)
            acc += h * h
        rstd = tl.rsqrt(tl.sum(acc, 0) / cols + eps)
        for c0 in range(0, cols, BLOCK):
            c = c0 + tl.arange(0, BLOCK)
            m = c < cols
            h = (tl.load(x + base + c, mask=m).to(tl.float32)
                 + tl.load(res + base + c, mask=m).to(tl.float32))
            wv = tl.load(w + c, mask=m).to(tl.float32)
            tl.store(y + base + c, (h * rstd * wv).to(tl.bfloat16), mask=m)

    @triton.jit
    def rmsnorm_tile(y, h_out, x, res, w, rows, cols, eps, BLOCK: tl.constexpr):
        base = tl.program_id(0) * cols
        c = tl.arange(0, BLOCK)
        m = c < cols
        h = (tl.load(x + base + c, mask=m, other=0.0).to(tl.float32)
             + tl.load(res + base + c, mask=m, other=0.0).to(tl.float32))
        tl.store(h_out + base + c, h.to(tl.bfloat16), mask=m)
        rstd = tl.rsqrt(tl.sum(h * h, 0) / cols + eps)
        wv = tl.load(w + c, mask=m).to(tl.float32)
        tl.store(y + base + c, (h * rstd * wv).to(tl.bfloat16), mask=m)

    @triton.jit
    def swiglu(out, x, w1, w2, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        a1 = tl.zeros([BM, BN], dtype=tl.float32)
        a2 = tl.zeros([BM, BN], dtype=tl.float32)
        for k0 in range(0, K, BK):
            rk = k0 + tl.arange(0, BK)
            xt = tl.load(x + rm[:, None] * K + rk[None, :],
                         mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
            mw = (rk[:, None] < K) & (rn[None, :] < N)
            a1 = tl.dot(xt, tl.load(w1 + rk[:, None] * N + rn[None, :], mask=mw, other=0.0), a1)
            a2 = tl.dot(xt, tl.load(w2 + rk[:, None] * N + rn[None, :], mask=mw, other=0.0), a2)
        o = a1 / (1.0 + tl.exp(-a1)) * a2
        tl.store(out + rm[:, None] * N + rn[None, :], o.to(tl.float16),
                 mask=(rm[:, None] < M) & (rn[None, :] < N))

    @triton.jit
    def quant_i8(q, scale, x, rows, cols, BLOCK: tl.constexpr):
        r = tl.program_id(0)
        c = tl.arange(0, BLOCK)
        m = c < cols
        v = tl.load(x + r * cols + c, mask=m, other=0.0)
        s = tl.maximum(tl.max(tl.abs(v), 0), 1e-30) / 127.0
        tl.store(scale + r, s)
        qv = tl.clamp(libdevice.round(v / s), -127.0, 127.0)
        tl.store(q + r * cols + c, qv.to(tl.int8), mask=m)

    @triton.jit
    def quant_f8(q, scale, x, rows, cols, BLOCK: tl.constexpr):
        r = tl.program_id(0)
        c = tl.arange(0, BLOCK)
        m = c < cols
        v = tl.load(x + r * cols + c, mask=m, other=0.0).to(tl.float32)
        s = tl.maximum(tl.max(tl.abs(v), 0), 1e-30) / 448.0
        tl.store(scale + r, s)
        tl.store(q + r * cols + c, (v / s).to(tl.float8e4nv), mask=m)

    @triton.jit
    def cumsum(out, x, rows, cols, BLOCK: tl.constexpr):
        base = tl.program_id(0) * cols
        carry = 0.0
        for c0 in range(0, cols, BLOCK):
            c = c0 + tl.arange(0, BLOCK)
            m = c < cols
            t = tl.load(x + base + c, mask=m, other=0.0)
            tl.store(out + base + c, tl.cumsum(t, 0) + carry, mask=m)
            carry += tl.sum(t, 0)

    @triton.jit
    def softmax_rows(out, x, rows, cols, BM: tl.constexpr, BN: tl.constexpr):
        r = tl.program_id(0) * BM + tl.arange(0, BM)
        c = tl.arange(0, BN)
        m = (r[:, None] < rows) & (c[None, :] < cols)
        v = tl.load(x + r[:, None] * cols + c[None, :], mask=m, other=-float("inf"))
        e = tl.exp(v - tl.max(v, 1)[:, None])
        tl.store(out + r[:, None] * cols + c[None, :], e / tl.sum(e, 1)[:, None], mask=m)

    for f in (rope, gelu_bwd, top1, rmsnorm, rmsnorm_tile, softmax_rows, swiglu, quant_i8,
              quant_f8, cumsum):
        g[f.__name__] = f
    import user_stencil
    g["heat2"], g["jacobi"] = user_stencil.heat2, user_stencil.jacobi
    return g


# ---------------------------------------------------------------- workloads

def w_rope(tr):
    T, H, D = 4096, 32, 128
    work = f"user rope f16 {T}x{H}x{D}"
    ang = torch.rand(T, D // 2, device="cuda", dtype=torch.float64) * 2 * math.pi
    cs, sn = ang.cos().float(), ang.sin().float()
    x0 = torch.randn(T, H, D, device="cuda", dtype=torch.float16)
    x = x0.clone()
    x1, x2 = x0.double()[..., :D // 2], x0.double()[..., D // 2:]
    c, s = cs.double()[:, None, :], sn.double()[:, None, :]
    ref = torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], -1)
    nbytes = 2 * x.numel() * 2 + 2 * cs.numel() * 4
    tol = B.TOL["float16"]

    def eager():
        a, b = x[..., :D // 2].float(), x[..., D // 2:].float()
        return torch.cat([a * cs[:, None] - b * sn[:, None], b * cs[:, None] + a * sn[:, None]],
                         -1).half()

    x.copy_(x0)
    _timed(work, "torch eager (out of place)", eager, [(0, ref, tol)], nbytes)
    restore = lambda: x.copy_(x0)  # noqa: E731
    for bh, half, w in ((32, 64, 4),):
        grid = (T, triton.cdiv(H, bh))
        _timed(work, f"triton BH={bh} HALF={half} w{w}",
               lambda: tr["rope"][grid](x, cs, sn, T, H, D, BH=bh, HALF=half, num_warps=w),
               [(x, ref, tol)], nbytes, prep=restore)
    args = [_p(x), _p(cs), _p(sn), B.i64(T), B.i64(H), B.i64(D)]
    _tile(work, "rope", args, [(x, ref, tol)], nbytes=nbytes, prep=restore)


def w_gelu_bwd(tr):
    n = 4096 * 5120
    work = f"user gelu_bwd f32 {n}"
    x = torch.randn(n, device="cuda") * 3
    dy = torch.randn(n, device="cuda")
    dx = torch.empty_like(x)
    xd = x.double()
    ref = dy.double() * (0.5 * (1 + torch.erf(xd / math.sqrt(2)))
                         + xd * torch.exp(-0.5 * xd * xd) / math.sqrt(2 * math.pi))
    nbytes, tol = 3 * n * 4, B.TOL["float32"]

    def eager():
        return dy * (0.5 * (1 + torch.erf(x * 0.7071067811865476))
                     + x * torch.exp(-0.5 * x * x) * 0.3989422804014327)

    _timed(work, "torch eager", eager, [(0, ref, tol)], nbytes)
    for block, w in ((1024, 4),):
        grid = (triton.cdiv(n, block),)
        _timed(work, f"triton BLOCK={block} w{w}",
               lambda: tr["gelu_bwd"][grid](dx, dy, x, n, BLOCK=block, num_warps=w),
               [(dx, ref, tol)], nbytes)
    _tile(work, "gelu_bwd", [_p(dx), _p(dy), _p(x), B.i64(n)], [(dx, ref, tol)], nbytes=nbytes)


def w_top1(tr):
    R, C = 4096, 4096
    work = f"user top1 f32 {R}x{C}"
    x = torch.randn(R, C, device="cuda") * 4
    val = torch.empty(R, device="cuda")
    idx = torch.empty(R, device="cuda", dtype=torch.int32)
    lsm = torch.log_softmax(x.double(), -1)
    rv, ri = lsm.max(-1)
    checks = [(val, rv, B.TOL["float32"]), (idx, ri, 0)]
    nbytes = R * C * 4 + R * 8

    def eager():
        v, i = torch.log_softmax(x, -1).max(-1)
        return v, i

    _timed(work, "torch eager", eager, [(0, rv, B.TOL["float32"]), (1, ri, 0)], nbytes)
    for block, w in ((4096, 8),):
        _timed(work, f"triton BLOCK={block} w{w}",
               lambda: tr["top1"][(R,)](val, idx, x, R, C, BLOCK=block, num_warps=w),
               checks, nbytes)
    _tile(work, "top1", [_p(val), _p(idx), _p(x), B.i64(R), B.i64(C)], checks, nbytes=nbytes)


def w_rmsnorm(tr):
    R, C, eps = 4096, 5120, 1e-6
    work = f"user add_rmsnorm bf16 {R}x{C}"
    bf = torch.bfloat16
    x = torch.randn(R, C, device="cuda", dtype=bf)
    res = torch.randn(R, C, device="cuda", dtype=bf)
    w = (torch.rand(C, device="cuda") + 0.5).to(bf)
    y, h_out = torch.empty_like(x), torch.empty_like(x)
    h = x.double() + res.double()
    ref_y = h * torch.rsqrt((h * h).mean(-1, keepdim=True) + eps) * w.double()
    tol = B.TOL["bfloat16"]
    checks = [(y, ref_y, tol), (h_out, h, tol)]
    nbytes = 4 * R * C * 2 + C * 2

    def eager():
        hh = x.float() + res.float()
        yy = hh * torch.rsqrt(hh.pow(2).mean(-1, keepdim=True) + eps) * w.float()
        return yy.to(bf), hh.to(bf)

    _timed(work, "torch eager", eager, [(0, ref_y, tol), (1, h, tol)], nbytes)
    for kern, block, w_ in (("rmsnorm", 1024, 4), ("rmsnorm", 2048, 8),
                            ("rmsnorm_tile", 8192, 8), ("rmsnorm_tile", 8192, 16)):
        label = ("loop" if kern == "rmsnorm" else "tile") + f" BLOCK={block} w{w_}"
        _timed(work, f"triton {label}",
               lambda: tr[kern][(R,)](y, h_out, x, res, w, R, C, eps, BLOCK=block, num_warps=w_),
               checks, nbytes)
    args = [_p(y), _p(h_out), _p(x), _p(res), _p(w), B.i64(R), B.i64(C), B.f64(eps)]
    _tile(work, "rmsnorm", args, checks, nbytes=nbytes)


def w_softmax_rows(tr):
    """Rows of 80 f32 (issue 17's [96, 80] tile): Tile's exact tile
    against power-of-two tiles with a column mask, Triton's at 64 and 128
    rows."""
    R, C = 65536, 80
    work = f"user softmax_rows f32 {R}x{C}"
    x = torch.randn(R, C, device="cuda")
    out = torch.empty_like(x)
    ref = torch.softmax(x.double(), -1)
    nbytes, tol = 2 * R * C * 4, B.TOL["float32"]
    _timed(work, "torch eager", lambda: torch.softmax(x, -1), [(0, ref, tol)], nbytes)
    for bm, w in ((64, 4), (128, 8)):
        _timed(work, f"triton {bm}x128 w{w}",
               lambda: tr["softmax_rows"][(triton.cdiv(R, bm),)](out, x, R, C, BM=bm, BN=128,
                                                               num_warps=w),
               [(out, ref, tol)], nbytes)
    _tile(work, "softmax_rows", [_p(out), _p(x), B.i64(R), B.i64(C)], [(out, ref, tol)],
          nbytes=nbytes)


def w_swiglu(tr):
    M, K, N = 4096, 4096, 11008
    work = f"user swiglu f16 {M}x{N}x{K}"
    x = torch.randn(M, K, device="cuda", dtype=torch.float16)
    w1 = (torch.randn(K, N, device="cuda") / math.sqrt(K)).half()
    w2 = (torch.randn(K, N, device="cuda") / math.sqrt(K)).half()
    out = torch.empty(M, N, device="cuda", dtype=torch.float16)
    xd = x.double()
    a1, a2 = xd @ w1.double(), xd @ w2.double()
    ref = a1 / (1 + torch.exp(-a1)) * a2
    del a1, a2, xd
    flops, tol = 4 * M * N * K, B.TOL["float16"]
    silu = torch.nn.functional.silu
    _timed(work, "torch eager", lambda: silu(x @ w1) * (x @ w2), [(0, ref, tol)], flops=flops)
    for bm, bn, bk, w, s in ((128, 128, 32, 8, 3), (128, 64, 32, 4, 3), (64, 64, 32, 4, 3)):
        grid = (triton.cdiv(M, bm), triton.cdiv(N, bn))
        _timed(work, f"triton {bm}x{bn}x{bk} w{w} s{s}",
               lambda: tr["swiglu"][grid](out, x, w1, w2, M, N, K, BM=bm, BN=bn, BK=bk,
                                          num_warps=w, num_stages=s),
               [(out, ref, tol)], flops=flops)
    args = [_p(out), _p(x), _p(w1), _p(w2), B.i64(M), B.i64(N), B.i64(K)]
    _tile(work, "swiglu", args, [(out, ref, tol)], flops=flops)
    del ref


def w_quant_i8(tr):
    R, C = 4096, 4096
    work = f"user quant_i8 f32 {R}x{C}"
    x = torch.randn(R, C, device="cuda") * 3
    q = torch.empty(R, C, device="cuda", dtype=torch.int8)
    scale = torch.empty(R, device="cuda")
    xd = x.double()
    rs = (xd.abs().amax(-1) / 127).clamp_min(1e-30)
    z = xd / rs[:, None]
    rq = (z.sign() * (z.abs() + 0.5).floor()).clamp(-127, 127)   # halves away from 0
    # q may differ by one where x / scale is within f32 rounding of a half
    checks = [(q, rq, 1), (scale, rs, B.TOL["float32"])]
    nbytes = R * C * 5 + R * 4

    def eager():
        s = (x.abs().amax(-1, keepdim=True) / 127).clamp_min(1e-30)
        return torch.round(x / s).clamp(-127, 127).to(torch.int8), s[:, 0]

    _timed(work, "torch eager", eager, [(0, rq, 1), (1, rs, B.TOL["float32"])], nbytes)
    for block, w in ((4096, 8),):
        _timed(work, f"triton BLOCK={block} w{w}",
               lambda: tr["quant_i8"][(R,)](q, scale, x, R, C, BLOCK=block, num_warps=w),
               checks, nbytes)
    _tile(work, "quant_i8", [_p(q), _p(scale), _p(x), B.i64(R), B.i64(C)], checks,
          nbytes=nbytes)


def w_quant_f8(tr):
    R, C = 4096, 4096
    work = f"user quant_f8 f16 {R}x{C}"
    x = torch.randn(R, C, device="cuda", dtype=torch.float16) * 3
    q = torch.empty(R, C, device="cuda", dtype=torch.float8_e4m3fn)
    scale = torch.empty(R, device="cuda")
    xd = x.double()
    rs = (xd.abs().amax(-1) / 448).clamp_min(1e-30)
    rq = xd / rs[:, None]
    # q is rq rounded to e4m3: within half a unit of its 3-bit mantissa
    # (1/16 relative; more below e4m3's normal range, 2^-6)
    checks = [(q, rq, 0.07), (scale, rs, B.TOL["float32"])]
    nbytes = R * C * 3 + R * 4

    def eager():
        s = (x.float().abs().amax(-1, keepdim=True) / 448).clamp_min(1e-30)
        return (x.float() / s).to(torch.float8_e4m3fn), s[:, 0]

    _timed(work, "torch eager", eager, [(0, rq, 0.07), (1, rs, B.TOL["float32"])], nbytes)
    for block, w in ((4096, 8), (4096, 4)):
        _timed(work, f"triton BLOCK={block} w{w}",
               lambda: tr["quant_f8"][(R,)](q, scale, x, R, C, BLOCK=block, num_warps=w),
               checks, nbytes)
    _tile(work, "quant_f8", [_p(q), _p(scale), _p(x), B.i64(R), B.i64(C)], checks,
          nbytes=nbytes)


def w_cumsum(tr):
    R, C = 4096, 4096
    work = f"user row_cumsum f32 {R}x{C}"
    x = torch.randn(R, C, device="cuda")
    out = torch.empty_like(x)
    ref = x.double().cumsum(-1)
    nbytes, tol = 2 * R * C * 4, B.TOL["float32"]
    _timed(work, "torch eager", lambda: torch.cumsum(x, -1), [(0, ref, tol)], nbytes)
    for block, w in ((1024, 4),):
        _timed(work, f"triton BLOCK={block} w{w}",
               lambda: tr["cumsum"][(R,)](out, x, R, C, BLOCK=block, num_warps=w),
               [(out, ref, tol)], nbytes)
    _tile(work, "cumsum", [_p(out), _p(x), B.i64(R), B.i64(C)], [(out, ref, tol)],
          nbytes=nbytes)


def _stencil_ref(name, u, a):
    """heat2 (two fused heat steps, 0 outside the grid) or jacobi (one
    step, the border kept) in float64."""
    p = torch.nn.functional.pad(u.double(), (1, 1, 1, 1))

    def step(p):
        return p[1:-1, 1:-1] + a * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:]
                                    - 4 * p[1:-1, 1:-1])
    if name == "heat2":
        return step(torch.nn.functional.pad(step(p), (1, 1, 1, 1)))
    out = u.double().clone()
    out[1:-1, 1:-1] = step(p)[1:-1, 1:-1]
    return out


def _stencil(tr, name):
    """examples/stencil.tile's kernel `name` on an n x n f32 grid at n =
    8192 and 8190 (rows not 16-byte aligned: the generic variant), each
    tile of USER_TILES beside Triton's same kernel at the same tile."""
    a = 0.1
    for n in (8192, 8190):
        work = f"user {name} f32 {n}x{n}"
        u = torch.randn(n, n, device="cuda")
        out = torch.empty_like(u)
        ref = _stencil_ref(name, u, a)
        checks, nbytes = [(out, ref, B.TOL["float32"])], 2 * n * n * 4
        for label, _src, _k, d, w in configs.USER_TILES[name]:
            bm, bn = d["BM"], d["BN"]
            grid = (triton.cdiv(n, bm), triton.cdiv(n, bn))
            _timed(work, f"triton {bm}x{bn} w{w}",
                   lambda: tr[name][grid](out, u, n, n, n, a, BM=bm, BN=bn, num_warps=w),
                   checks, nbytes)
        _tile(work, name, [_p(out), _p(u), B.i64(n), B.i64(n), B.i64(n), B.f64(a)], checks,
              nbytes=nbytes)
        del u, out


def w_heat2(tr):
    _stencil(tr, "heat2")


def w_jacobi(tr):
    _stencil(tr, "jacobi")


def run(bench_module, only=""):
    """Step `user`: every workload of ORDER (or those named in `only`, a
    comma list), each in its own try/except."""
    global B, torch, triton, tl
    B = bench_module
    torch, triton, tl = B.torch, B.triton, B.tl
    tr = define_triton()
    names = [n for n in only.split(",") if n] or ORDER
    for name in names:
        try:
            globals()["w_" + name](tr)
        except Exception as e:  # noqa: BLE001
            B.fail(f"user {name}", f"{type(e).__name__}: {e}\n{traceback.format_exc()}")
        torch.cuda.empty_cache()
