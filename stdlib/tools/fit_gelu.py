#!/usr/bin/env python3
"""fit_gelu.py — derives the polynomial of std/math's gelu and measures its error.

    python3 stdlib/tools/fit_gelu.py        (needs numpy; about a second)

Prints the coefficients as the Tile expression that stdlib/std/math.tile
holds, says whether math.tile's copy matches, and prints the measured error
of the whole gelu (as computed on the GPU, in the interpreter and in f64)
beside that of PyTorch's formula in f32. Deterministic: no random numbers
(math.tile's coefficients came from numpy 2.4 with its bundled OpenBLAS;
another LAPACK might round the last bit of a coefficient differently, which
the "match" line would show — the measurements hold for whatever it
prints).

The formula. gelu(x) = x Phi(x), Phi the standard normal distribution
function. With t = min(|x|, T) and p = Phi(-t):

    x < 0:  gelu(x) = x Phi(x)       = -t p       (for |x| < T)
    x >= 0: gelu(x) = x (1 - Phi(-x)) = x - t p   (for x < T)

so gelu(x) = relu(x) - t p for every x, provided p = 0 at t = T. Neither
branch cancels: for x < 0 the result is a product (relative error that of
p), where 0.5 x (1 + erf(x / sqrt 2)) loses all digits of 1 + erf once
erf(x / sqrt 2) rounds to -1 (x < -5.8 in f32).

p = 2^Q(t), with Q a polynomial of degree DEG fitted to log2 Phi(-t) on
[0, T] (1/sqrt 2 is folded into the coefficients: Q is a polynomial in
|x| itself). On the GPU that is one min, DEG fused multiply-adds (Horner),
one MUFU.EX2 (ex2.approx.ftz) and the relu and final fma, against
libdevice's __nv_erff (about 20 instructions and two coefficient sets).

The fit. An error dQ in Q changes p by p ln2 dQ. The fit minimizes
max |dp| / (ATOL + RTOL p) over [0, T] — relative accuracy RTOL where p is
not tiny, absolute ATOL in the tail — by Lawson's iteratively reweighted
least squares on Chebyshev nodes (it converges to the weighted minimax
polynomial). One extra, heavily weighted point asks for Q(T) = QT = -160:
2^Q(T) then rounds to 0 in f32 (everything below 2^-150 does, and
ex2.approx.ftz flushes below 2^-126), so that clamping t at T gives
gelu(x) = relu(x) exactly for |x| >= T, gelu(-inf) = 0, gelu(+inf) = +inf,
and NaN propagates through relu. T = 12 leaves the polynomial room to
fall from log2 Phi(-12) = -109 to -160 without disturbing the fit below.

The coefficients are rounded to f32 and printed as the shortest decimal
that reads back as that f32 (also through a double: checked); every
measurement below uses the rounded coefficients.
"""
import math
import os
import re
import sys

import numpy as np

T = 12.0            # clamp of |x|; Phi(-T) = 1.8e-33
DEG = 10            # degree of Q
RTOL = 1e-6         # relative accuracy asked of p where p >> ATOL / RTOL
ATOL = 1e-11        # absolute accuracy asked of p in the tail
QT = -160.0         # Q(T): 2^QT rounds to 0 in f32
NODES = 3000
ITERATIONS = 400

LN2 = math.log(2.0)
f32 = np.float32


def phi_neg(t):
    """Phi(-t) in double, accurate in the tail (erfc, no cancellation)."""
    return np.array([0.5 * math.erfc(v / math.sqrt(2.0)) for v in np.ravel(t)])


def fit():
    """Q's coefficients in double, lowest degree first, and the weighted error."""
    t = (1 - np.cos(np.pi * (np.arange(NODES) + 0.5) / NODES)) / 2 * T
    p = phi_neg(t)
    y = np.log2(p)
    w = p * LN2 / (ATOL + RTOL * p)
    t, y, w = np.append(t, T), np.append(y, QT), np.append(w, 1.0)
    u = 2 * t / T - 1
    vander = np.polynomial.chebyshev.chebvander(u, DEG)
    lam = np.full(len(t), 1.0 / len(t))
    for _ in range(ITERATIONS):
        sw = w * np.sqrt(lam)
        c = np.linalg.lstsq(vander * sw[:, None], y * sw, rcond=None)[0]
        r = np.abs(vander @ c - y) * w
        lam = lam * r + 1e-300
        lam /= lam.sum()
    cheb = np.polynomial.Chebyshev(c, domain=[0, T])
    return cheb.convert(kind=np.polynomial.Polynomial).coef, r[:-1].max()


def literal(c):
    """The shortest decimal of f32 c that reads back as c, also via double."""
    s = np.format_float_positional(c, unique=True, trim="-") \
        if 1e-3 <= abs(c) < 1e4 else np.format_float_scientific(c, unique=True, trim="-")
    assert f32(float(s)) == c and f32(np.float64(s)) == c, s
    return s


def tile_expr(co):
    """Horner's form in t as math.tile writes it, wrapped at 78 columns."""
    lits = [literal(c) for c in co]
    pieces = ["%s + t * (" % s for s in lits[:-2]]
    pieces += ["%s + t * %s" % (lits[-2], lits[-1]) + ")" * (len(lits) - 2) + ";"]
    lines, line = [], "    let q = "
    for piece in pieces:
        if len(line) + len(piece) > 78:
            lines.append(line.rstrip())
            line = "        "
        line += piece
    return lits, "\n".join(lines + [line])


# ---------------------------------------------------------------- models

def horner_f32(co32, t):
    q = co32[-1]
    for c in co32[-2::-1]:
        q = f32(float(q) * t + float(c))
    return q


def rnd(a):
    return np.asarray(a, dtype=np.float64).astype(f32).astype(np.float64)


def gelu_model(x, co32, mode):
    """gelu(x) = relu(x) - t 2^Q(t) computed as the GPU ('gpu': Horner and
    the last step fused, each fma rounded once; exp2 correctly rounded:
    ex2.approx's own error is added as a bound), the interpreter
    ('interp': every operation rounded to f32) or in double ('f64')."""
    x = np.asarray(x, dtype=np.float64)
    if mode == "f64":
        t = np.minimum(np.abs(x), T)
        q = np.full_like(t, float(co32[-1]))
        for c in co32[-2::-1]:
            q = q * t + float(c)
        return np.where(x < 0, 0.0, x) - t * np.exp2(q)
    t = rnd(np.minimum(np.abs(x), T))
    q = np.full_like(t, float(co32[-1]))
    for c in co32[-2::-1]:
        q = rnd(q * t + float(c)) if mode == "gpu" else rnd(rnd(q * t) + float(c))
    with np.errstate(over="ignore", under="ignore"):
        p = rnd(np.exp2(q))
    relu = np.where(x < 0, 0.0, x)
    return rnd(relu - t * p) if mode == "gpu" else rnd(relu - rnd(t * p))


def gelu_pytorch_f32(x):
    """PyTorch's x * 0.5 * (1 + erf(x * M_SQRT1_2)) in f32, with erf
    correctly rounded (libdevice's erff errs a little more)."""
    s = rnd(np.asarray(x) * float(f32(1 / math.sqrt(2.0))))
    e = rnd(np.array([math.erf(v) for v in s]))
    return rnd(rnd(rnd(x * 0.5) * rnd(1.0 + e)))


# ----------------------------------------------------------- measurement

def grid():
    """Every f32 step of 2^-12 over [-16, 16], and +-10^k down to 1e-30."""
    dense = np.arange(-16 * 4096, 16 * 4096 + 1) / 4096.0
    small = 10.0 ** np.linspace(-30, 0, 3001)
    return rnd(np.concatenate([dense, small, -small]))


def measure(x, g, ref_phi):
    ref = x * ref_phi
    nz = x != 0
    phi_err = np.abs(g[nz] / x[nz] - ref_phi[nz]).max()
    out = {"Phi abs": phi_err}
    rel = np.abs(g - ref) / np.where(ref == 0, 1, np.abs(ref))
    for floor in (1e-6, 1e-10, 1e-20, 1e-30):
        m = np.abs(ref) >= floor
        out["rel |g|>=%g" % floor] = rel[m].max()
    return out


def specials(co32):
    xs = [-math.inf, -100.0, -13.0, -12.0, -0.0, 0.0, 12.0, 100.0, math.inf, math.nan]
    with np.errstate(invalid="ignore"):
        gs = gelu_model(np.array(xs), co32, "interp")
    return ", ".join("gelu(%g) = %g" % (a, b) for a, b in zip(xs, gs))


def math_tile_literals():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "std", "math.tile")
    try:
        src = open(path).read()
    except OSError:
        return None
    m = re.search(r"fn gelu\(x\) \{(.*?)\n\}", src, re.S)
    q = re.search(r"let q = (.*?);", m.group(1), re.S) if m else None
    if not q:
        return None
    return re.findall(r"-?\d[\d.]*(?:e-?\d+)?", q.group(1))


def main():
    co, werr = fit()
    co32 = co.astype(f32)
    lits, expr = tile_expr(co32)
    print("gelu: T = %g, degree %d, RTOL %g, ATOL %g, Q(T) target %g" % (T, DEG, RTOL, ATOL, QT))
    print("fit's weighted error max |dp| / (ATOL + RTOL p), double coefficients: %.3g" % werr)
    print("coefficients of Q (t^0 first), f32:")
    for k, s in enumerate(lits):
        print("  c%-2d = %s" % (k, s))
    print("Q(T) in f32 Horner: %g" % horner_f32(co32, T))
    print("\nTile (stdlib/std/math.tile):\n" + expr)
    have = math_tile_literals()
    print("stdlib/std/math.tile: %s" % ("coefficients match" if have == lits else
                                         "DIFFERENT coefficients: %s" % have))

    x = grid()
    ref_phi = np.where(x < 0, phi_neg(-x), 1 - phi_neg(x))
    print("\nmeasured on %d f32 x in [-16, 16] (step 2^-12) and +-1e-30..1, against"
          " double x Phi(x):" % len(x))
    print("  Phi abs = max |gelu~(x)/x - Phi(x)|; rel = max |gelu~ - gelu| / |gelu| where |gelu| >= floor")
    rows = [("gpu (fma)", gelu_model(x, co32, "gpu")),
            ("interpreter", gelu_model(x, co32, "interp")),
            ("f64", gelu_model(x, co32, "f64")),
            ("PyTorch f32", gelu_pytorch_f32(x))]
    for name, g in rows:
        r = measure(x, g, ref_phi)
        print("  %-12s " % name + "  ".join("%s %.2e" % kv for kv in r.items()))
    print("  (on the GPU ex2.approx adds up to 2^-22 relative to p: at most %.1e to Phi's"
          " error, at x = 0)" % (0.5 * 2.0 ** -22))
    print("\nspecial values (interpreter model): " + specials(co32))


if __name__ == "__main__":
    sys.exit(main())
