#!/usr/bin/env python3
"""tilegen.py — random, well-typed Tile kernels with their difftest cases.

    tilegen.py --seed S [-o FILE.tile] [--kernels N] [--numpy FILE.py]
               [--templates a,b,...] [--no-contig-cmp]

Deterministic from --seed (Python's random.Random; nothing else is read).
One file holds N kernels (default 3), each built from a template of the
kinds users write, with random contents:

  ew1d    1-D blocks over n elements: program_id * BLOCK + arange, bounds
          mask, shifted / reversed / gathered / extra-masked loads with and
          without `other`, an expression DAG, masked stores, a scalar
          reduction per program; @tune over BLOCK and warps
  tile2d  2-D tiles over an R x C matrix: r[:, None] / c[None, :], row and
          column vectors broadcast, column-major reads, stencil reads of a
          neighbour (row r + dr, column c + dc, |dr|, |dc| <= 2, masked
          as users write it: stencil_load), reductions and
          cumsum, cummax, cummin along either axis (keepdims too), stores
          through trans, reshape and permute of value, index and mask alike
  row     one program per row (softmax-like), @require(BLOCK >= C), scalar
          reductions broadcast back; at times weights beside the row (w +
          c: another offset class, as layernorm's) and the row's
          neighbour column (c + dc, masked both ways)
  loop    a `for` loop over column blocks carrying tiles (sum / max
          accumulators and an element-wise one), `if` on runtime scalars
          inside and after the loop; at times a neighbour column of the
          block read beside it (kk + dc, masked both ways); 3 in 10 the
          loop written as `var k = 0; while k < C { ...; k += step; }`
  atomic  atomic_add/max/min with contention (results that do not depend
          on the order, f32 sums within a tolerance), xchg/cas on unique
          addresses with their old values stored, a scalar atomic
  chain   two products chained in a key-block loop, attention-like (not
          drawn by default: --templates chain), exact by construction
  dot     matrix products (f16, bf16, tf32/ieee f32, i8, f8 mixed) of small tiles
          (16..64) in a K loop with masked loads, `acc=`, epilogues; 3 in
          10 persistent: P programs walk the tiles in one loop over (tile,
          k), the epilogue in an `if` at each tile's last step;
          --wide-dots: f16/bf16 tiles of 64 or 128 by 64 or 128 with BK 64
          over 4 or 8 warps, sizes mostly odd (made for tilec --row-tma,
          withdrawn: wide products over ragged rows); --big-dots (with
          --wide-dots): half of the products 128 x 256 over 8 warps at 4
          stages, whose epilogue, in the persistent form, converts through
          its buffer in pieces beside the rings; --stepped-pointers: 7 in 10 of the
          non-persistent products load through pointer tiles the loop
          steps (`pa += BK`, Triton's tutorial form: plan/induction.c),
          half of them masking K as `rk < K - k`;
          --strided-dots: 7 in 10 of the others take every stride as a
          parameter (`rm[:, None] * sam + (k + rk)[None, :] * sak`), given
          the values of the buffers' layouts (so the unit-stride variants
          run)

Block sizes include extents that are not powers of two (ew1d 48 and
100/24, tile2d BM 12/24/40 and BN 80/24, row 100 and 48/160, dot M 48 and
N 24/80 and BK 40/24/48 (its operands then straight loads), loop BM 24
and BK 80): the compiler lays such tiles out padded
(docs/internals/layout.md, "Padded tiles"), which the differential run
then checks on generated programs too. A reshape of a tile whose BN is
not a power of two would move its elements in the padded layout (sema
refuses it), so tile2d stores such tiles through trans instead.

Expressions are random DAGs over every dtype: arithmetic, bitwise ops and
shifts (amounts masked to the width), C division by divisors never 0
(a tile's low bits plus 1, or, in 4 of 10 divisions where the kernel has
runtime integer parameters, a parameter's low bits plus 1, negated half
the time for signed types: a scalar divisor the lowering inverts once),
maximum/minimum/clamp/abs/where/floor/ceil/fma/exp, casts among all
types, comparisons (all six, both operand orders, against constants,
runtime integer parameters and other tiles) combined with & | ^ !.

Each value carries what the generator knows about it: its type and
shape; for integers an interval (wrapping to the type's range where it
could overflow); for floats a magnitude bound B and an error bound E on
how far two faithful evaluations may differ (0 until an operation whose
GPU result legitimately differs from the interpreter's: a multiply
feeding an add (FMA contraction), f32 division (div.full, 2 ulp), f32 exp
(ex2.approx), sums and scans (order); once E > 0 every rounding adds
eps * B). A stored buffer's tolerance is atol = 2.5 E of its value (its
last conversion included); E = 0 means bit-exact. Values with E > 0 never
reach a comparison, a float->int conversion, floor/ceil or argmax (which
would turn a rounding difference into a different result), and operations
that would let E > 0 values grow past a per-type magnitude limit are not
generated. Float->int conversions go through clamp() into the target's
range (clamp also turns NaN into the low bound). Loads without `other`
leave masked-off elements unspecified (the interpreter makes them NaN or
0xA5A5...; the GPU gives 0): such values are only combined element-wise,
never reduced, and a store of one is masked by the load's mask as well;
a mask computed from one (a store's or a load's) is and-ed with that
load's mask too, so that no unspecified element decides what is stored
or loaded.

The case lines (// diff: ...) give the arguments: sizes at the edges (0,
1, block +-1, non-multiples of 16, values that make masks partial), all
integer parameters multiples of 16 in some cases (so the aligned a16
variant runs: modes=au) and in others multiples of 8 but not of 16 (a
guard of 8 or less still admits a16; one of 16 sends them to p16 or g), config= to pick each @tune configuration,
special=1 (NaN, inf, -0, subnormals) where every float output is exact.

--numpy FILE.py (with the ew1d/tile2d templates on a single program,
grid(1)) also writes a Python program mirroring each kernel with
npsem.py's functions: tests/fuzz/npcheck.py runs it against the
interpreter. --no-contig-cmp leaves out comparisons whose one side is a
contiguous index tile (a triage switch: the axis analysis has a known bug
class there; the default generates them).
"""
import argparse
import math
import random
import sys

INTS = ['i8', 'i16', 'i32', 'i64', 'u8', 'u16', 'u32', 'u64']
FLOATS = ['f16', 'bf16', 'f32', 'f64']
BITS = {'bool': 1, 'i8': 8, 'i16': 16, 'i32': 32, 'i64': 64, 'u8': 8, 'u16': 16,
        'u32': 32, 'u64': 64, 'f16': 16, 'bf16': 16, 'f32': 32, 'f64': 64}
EPS = {'f16': 2.0 ** -11, 'bf16': 2.0 ** -8, 'f32': 2.0 ** -24, 'f64': 2.0 ** -53}
# the magnitude a value with E > 0 may reach (far from overflow)
LIM = {'f16': 1e3, 'bf16': 1e6, 'f32': 1e6, 'f64': 1e6}
TR = {'bool': (0, 1)}
for _t in INTS:
    _b = BITS[_t]
    TR[_t] = (-(1 << (_b - 1)), (1 << (_b - 1)) - 1) if _t[0] == 'i' else (0, (1 << _b) - 1)
FCONSTS = [0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 0.25, -2.0, 1.5, -0.5, 4.0]
CMPS = ['<', '<=', '>', '>=', '==', '!=']
FLIP = {'<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!='}


def weak8(v):
    """A multiple of 8 that is not one of 16, near v (v at least 8):
    arguments that meet guards of 2, 4 or 8 but not 16."""
    v = max(8, v // 8 * 8)
    return v + 8 if v % 16 == 0 else v


def isf(t):
    return t in FLOATS


def promote(a, b):
    if a == b:
        return a
    if isf(a) and isf(b):
        if {a, b} == {'f16', 'bf16'}:
            return 'f32'
        return a if BITS[a] > BITS[b] else b
    if isf(a):
        return a
    if isf(b):
        return b
    if BITS[a] != BITS[b]:
        return a if BITS[a] > BITS[b] else b
    return a if a[0] == 'u' else b


def acc_type(t):
    return {'i8': 'i32', 'i16': 'i32', 'u8': 'u32', 'u16': 'u32'}.get(t, t)


def bshape(a, b):
    """NumPy broadcasting of symbolic shapes (tuples of names / 1)."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return tuple(out)


def conjuncts(s):
    """The top-level terms of a fully parenthesized `&` chain:
    '(m & (a & b))' -> {'m', 'a', 'b'}; anything else is one term."""
    if s.startswith('(') and s.endswith(')'):
        depth = 0
        for i, ch in enumerate(s):
            depth += ch == '('
            depth -= ch == ')'
            if depth == 0 and i < len(s) - 1:
                return frozenset([s])       # '(a) | (b)': not one group
            if depth == 1 and s.startswith(' & ', i + 1):
                return conjuncts(s[1:i + 1]) | conjuncts(s[i + 4:-1])
    return frozenset([s])


def lit(v, t):
    if isf(t):
        s = repr(float(v))
    else:
        s = str(int(v))
    return '(%s)' % s if s.startswith('-') else s


class V:
    """A generated value: Tile source s, numpy source np, type, shape,
    integer interval lo..hi, float bound B and error bound E, the masks
    its unspecified elements need (needs), whether it is a float product
    (ismul: the product's eps, 0 if not one; an add of it may be
    contracted, also through a negation or a widening conversion, which
    LLVM folds into the fma: the product then goes unrounded) and whether
    it is a weak literal."""

    def __init__(self, s, np, ty, shape, E=0.0, B=0.0, lo=None, hi=None,
                 needs=frozenset(), ismul=0.0, weak=False, contig=False):
        self.s, self.np, self.ty, self.shape = s, np, ty, tuple(shape)
        self.E, self.B, self.needs, self.ismul, self.weak = E, B, needs, ismul, weak
        self.contig = contig
        if ty in TR:
            lo = TR[ty][0] if lo is None else lo
            hi = TR[ty][1] if hi is None else hi
            if lo < TR[ty][0] or hi > TR[ty][1]:
                lo, hi = TR[ty]
            self.B = float(max(abs(lo), abs(hi)))
        self.lo, self.hi = lo, hi


class Kernel:
    def __init__(self, gen, name, r, dims, maxlen):
        self.g, self.name, self.r = gen, name, r
        self.dims = dims              # symbolic dim -> list of values
        self.maxlen = maxlen          # longest reduction / loop extent
        self.lines, self.np = [], []
        self.ntmp = 0
        self.leaves = []              # float/int values at hand
        self.idx = []                 # integer index tiles (for masks)
        self.scalars = []             # runtime integer parameters as V
        self.params = []              # (name, type string)
        self.bufs = {}                # name -> {'ty', 'out', 'E', 'exact'}
        self.argm = False
        self.S = ()
        self.holds = lambda config, case: True
        self.used = {}

    # ------------------------------------------------------------ helpers
    def dmax(self, d):
        return max(self.dims[d]) if d in self.dims else d

    def nel(self, shape):
        n = 1
        for d in shape:
            n *= self.dmax(d) if d != 1 else 1
        return n

    def emit(self, s, np=None):
        self.lines.append('    ' + s)
        if np is not None:
            self.np.append(np)

    def let(self, v):
        self.ntmp += 1
        n = 't%d' % self.ntmp
        self.emit('let %s = %s;' % (n, v.s), '%s = %s' % (n, v.np))
        w = V(n, n, v.ty, v.shape, v.E, v.B, v.lo, v.hi, v.needs, v.ismul,
              contig=v.contig)
        return w

    def param(self, name, ty):
        self.params.append((name, ty))

    def buf(self, name, ty, out):
        self.params.append((name, '*' + ty))
        self.bufs[name] = {'ty': ty, 'out': out, 'E': 0.0}

    def ch(self, xs):
        return self.r.choice(xs)

    # ------------------------------------------------------------ conversions
    def conv(self, v, t):
        """`v as t` (identity when v is t)."""
        if v.ty == t:
            return v
        s = '(%s as %s)' % (v.s, t) if not v.weak else lit(
            float(v.s.strip('()')) if isf(t) else int(float(v.s.strip('()'))), t)
        np = 'CAST(%s, %r, %r)' % (v.np, v.ty, t)
        if t == 'bool':
            return V(s, np, t, v.shape, needs=v.needs)
        if isf(t):
            if isf(v.ty):
                E = v.E
                if v.E > 0 and EPS[t] > EPS[v.ty]:
                    E += EPS[t] * v.B
                # fadd(fpext(fmul)) contracts to an fma of the widened operands
                ismul = v.ismul if EPS[t] < EPS[v.ty] else 0.0
                return V(s, np, t, v.shape, E=E, B=v.B, needs=v.needs, ismul=ismul)
            return V(s, np, t, v.shape, B=float(max(abs(v.lo), abs(v.hi))), needs=v.needs)
        if isf(v.ty):
            raise ValueError('float->int goes through f2i')
        lo, hi = (v.lo, v.hi) if TR[t][0] <= v.lo and v.hi <= TR[t][1] else TR[t]
        return V(s, np, t, v.shape, lo=lo, hi=hi, needs=v.needs)

    def f2i(self, v, t):
        """A float value with E == 0 clamped into t's range and converted."""
        lo = self.ch([TR[t][0], 0, -50]) if t[0] == 'i' else 0
        lo = max(lo, TR[t][0], -1000)
        hi = min(TR[t][1], self.ch([100, 1000, 7]))
        c = V('clamp(%s, %s, %s)' % (v.s, lit(lo, v.ty), lit(hi, v.ty)),
              'CLAMP(%s, %s, %s, %r)' % (v.np, lo, hi, v.ty), v.ty, v.shape,
              B=float(max(abs(lo), abs(hi))), needs=v.needs)
        return V('(%s as %s)' % (c.s, t), 'CAST(%s, %r, %r)' % (c.np, v.ty, t), t,
                 v.shape, lo=lo, hi=hi, needs=v.needs)

    # ------------------------------------------------------------ float ops
    def fop(self, op, a, b):
        t = a.ty if b.weak else b.ty if a.weak else promote(a.ty, b.ty)
        sh = bshape(a.shape, b.shape)
        if sh is None or not isf(t):
            return None
        A, Bv = self.conv(a, t), self.conv(b, t)
        E, B, nondet, ceps = 0.0, 0.0, False, 0.0
        if op in '+-':
            B = A.B + Bv.B
            E = A.E + Bv.E
            nondet = bool(A.ismul or Bv.ismul)
            ceps = max(A.ismul, Bv.ismul)   # a contracted product skips its rounding
        elif op == '*':
            B = A.B * Bv.B
            E = A.E * Bv.B + Bv.E * A.B + A.E * Bv.E
        elif op == '/':
            # b is made >= 1 in magnitude by the caller: |1/b| <= 1
            B = A.B
            E = A.E + A.B * Bv.E
            nondet = t == 'f32'
        if B > LIM[t] and (E > 0 or nondet):
            return None
        if B > 0.5 * {'f16': 65504.0, 'bf16': 3e38, 'f32': 3e38, 'f64': 1e300}[t]:
            return None
        if E > 0 or nondet:
            E += (2 if op == '/' else 1) * max(EPS[t], ceps) * max(B, 1e-30)
        s = '(%s %s %s)' % (a.s if not a.weak else lit(float(a.s.strip('()')), t), op,
                            b.s if not b.weak else lit(float(b.s.strip('()')), t))
        np = 'BIN(%r, %s, %s, %r)' % (op, A.np, Bv.np, t)
        return V(s, np, t, sh, E=E, B=B, needs=a.needs | b.needs,
                 ismul=EPS[t] if op == '*' else 0.0)

    def iop(self, op, a, b):
        t = a.ty if b.weak else b.ty if a.weak else promote(a.ty, b.ty)
        sh = bshape(a.shape, b.shape)
        if sh is None or isf(t) or t == 'bool':
            return None
        A, Bv = self.conv(a, t), self.conv(b, t)
        tl, th = TR[t]
        lo, hi = tl, th
        if op in '+-*':
            xs = [A.lo, A.hi]
            ys = [Bv.lo, Bv.hi] if op != '-' else [-Bv.hi, -Bv.lo]
            if op == '*':
                ps = [x * y for x in xs for y in ys]
            else:
                ps = [x + y for x in xs for y in ys]
            lo, hi = min(ps), max(ps)
        elif op == '&':
            if A.lo >= 0 or Bv.lo >= 0:
                lo, hi = 0, min(h for l, h in ((A.lo, A.hi), (Bv.lo, Bv.hi)) if l >= 0)
        elif op in '|^':
            if A.lo >= 0 and Bv.lo >= 0:
                lo, hi = 0, (1 << max(A.hi, Bv.hi).bit_length()) - 1
        elif op in ('/', '%'):
            pass                                # caller sets the interval
        s = '(%s %s %s)' % (a.s if not a.weak else lit(int(a.s.strip('()')), t), op,
                            b.s if not b.weak else lit(int(b.s.strip('()')), t))
        np = 'BIN(%r, %s, %s, %r)' % (op, A.np, Bv.np, t)
        return V(s, np, t, sh, lo=lo, hi=hi, needs=a.needs | b.needs)

    def cmp(self, op, a, b):
        t = a.ty if b.weak else b.ty if a.weak else promote(a.ty, b.ty)
        sh = bshape(a.shape, b.shape)
        if sh is None:
            return None
        if isf(t) and (a.E > 0 or b.E > 0):
            return None
        if self.g.no_contig_cmp and (a.contig or b.contig):
            return None
        A, Bv = self.conv(a, t), self.conv(b, t)
        s = '(%s %s %s)' % (
            a.s if not a.weak else lit(float(a.s.strip('()')) if isf(t) else int(a.s.strip('()')), t),
            op,
            b.s if not b.weak else lit(float(b.s.strip('()')) if isf(t) else int(b.s.strip('()')), t))
        return V(s, 'CMP(%r, %s, %s, %r)' % (op, A.np, Bv.np, t), 'bool', sh,
                 needs=a.needs | b.needs)

    def const(self, t):
        if isf(t):
            c = self.ch(FCONSTS)
            return V(lit(c, t), 'arr(%r, %r)' % (c, t), t, (), B=abs(c), weak=True)
        lo, hi = TR[t]
        c = self.ch([0, 1, 2, 3, 5, 7, 15, 16, 17, 31, 100, -1, -3, -100, 127])
        c = min(max(c, lo), hi, 127)
        return V(lit(c, t), 'arr(%d, %r)' % (c, t), t, (), lo=c, hi=c, weak=True)

    # ------------------------------------------------------------ expressions
    def pick(self, kind):
        """A leaf of the kind 'f' or 'i' (None when there is none)."""
        c = [v for v in self.leaves if (isf(v.ty) if kind == 'f' else v.ty in INTS)]
        if not c:
            return None
        # mostly the least used, so that every load and let gets used
        if self.r.random() < 0.7:
            least = min(self.used.get(v.s, 0) for v in c)
            c = [v for v in c if self.used.get(v.s, 0) == least]
        v = self.ch(c)
        self.used[v.s] = self.used.get(v.s, 0) + 1
        return v

    def expr(self, kind, depth):
        for _ in range(8):
            v = self._expr(kind, depth)
            if v is not None:
                if depth >= 2 and self.r.random() < 0.4:
                    v = self.let(v)
                    self.leaves.append(v)
                return v
        return self.leaf(kind)

    def leaf(self, kind):
        v = self.pick(kind)
        if v is not None:
            return v
        o = self.pick('i' if kind == 'f' else 'f')
        if kind == 'f':
            return self.conv(self.narrow(o if o is not None else self.idx[0]),
                             self.ch(FLOATS))
        if o is not None and o.E == 0:
            return self.f2i(o, self.ch(INTS))
        return self.idx[0]

    def narrow(self, v):
        """An integer value made small (for a conversion to float)."""
        if v.hi - v.lo <= 4096:
            return v
        if self.r.random() < 0.5:
            m = self.ch([255, 1023, 15])
            return self.iop('&', v, V(str(m), 'arr(%d, %r)' % (m, v.ty), v.ty, (),
                                      lo=m, hi=m, weak=True))
        d = self.ch([64, 100, 7])
        w = self.iop('%', v, V(str(d), 'arr(%d, %r)' % (d, v.ty), v.ty, (),
                               lo=d, hi=d, weak=True))
        w.lo, w.hi = (-(d - 1), d - 1) if v.lo < 0 else (0, d - 1)
        return w

    def _expr(self, kind, depth):
        if depth <= 0 or self.r.random() < 0.08:
            return self.leaf(kind)
        if kind == 'f':
            return self.fexpr(depth)
        return self.iexpr(depth)

    def where_parts(self, a, kind, d):
        """The operands of where(c, a, b) for fexpr/iexpr: a fresh mask c and
        value b of `kind`, both converted to their common type t over the
        broadcast shape sh; None when the shapes do not broadcast."""
        c = self.mask(d - 1)
        b = self.expr(kind, d - 1)
        t = promote(a.ty, b.ty)
        sh = bshape(bshape(a.shape, b.shape) or (), c.shape)
        if sh is None or bshape(a.shape, b.shape) is None:
            return None
        return c, b, self.conv(a, t), self.conv(b, t), t, sh

    def fexpr(self, d):
        r = self.r
        op = r.choice(['+', '-', '*', '+', '*', '/', 'max', 'min', 'abs', 'neg',
                       'where', 'clamp', 'cast', 'cast', 'exp', 'fma', 'floor',
                       'red', 'red', 'cumsum', 'const'])
        a = self.expr('f', d - 1)
        if op in ('+', '-', '*'):
            b = self.const(a.ty) if r.random() < 0.3 else self.expr('f', d - 1)
            return self.fop(op, a, b) if r.random() < 0.5 or b.weak else self.fop(op, b, a)
        if op == 'const':
            return self.fop(r.choice('+*-'), a, self.const(a.ty))
        if op == '/':
            b = self.expr('f', d - 1)
            t = promote(a.ty, b.ty)
            den = V('(abs(%s) + %s)' % (b.s, lit(1.0, b.ty)),
                    'BIN("+", ABS(%s, %r), arr(1.0, %r), %r)' % (b.np, b.ty, b.ty, b.ty),
                    b.ty, b.shape, E=b.E + (EPS[b.ty] * (b.B + 1) if b.E > 0 else 0),
                    B=b.B + 1, needs=b.needs)
            if t != a.ty and t != b.ty:
                return None
            return self.fop('/', a, den)
        if op in ('max', 'min'):
            b = self.expr('f', d - 1)
            t = promote(a.ty, b.ty)
            sh = bshape(a.shape, b.shape)
            if sh is None:
                return None
            A, Bv = self.conv(a, t), self.conv(b, t)
            f = 'maximum' if op == 'max' else 'minimum'
            # maximum(x, x) folds to x, and x stays a product
            return V('%s(%s, %s)' % (f, a.s, b.s),
                     '%s(%s, %s, %r)' % ('MAXI' if op == 'max' else 'MINI', A.np, Bv.np, t),
                     t, sh, E=max(A.E, Bv.E), B=max(A.B, Bv.B), needs=a.needs | b.needs,
                     ismul=A.ismul if A.s == Bv.s else 0.0)
        if op == 'abs':   # abs(x * x) folds to x * x
            return V('abs(%s)' % a.s, 'ABS(%s, %r)' % (a.np, a.ty), a.ty, a.shape,
                     E=a.E, B=a.B, needs=a.needs, ismul=a.ismul)
        if op == 'neg':   # fadd(fneg(fmul)) contracts as well
            return V('(-%s)' % a.s, 'NEG(%s, %r)' % (a.np, a.ty), a.ty, a.shape,
                     E=a.E, B=a.B, needs=a.needs, ismul=a.ismul)
        if op == 'where':
            w = self.where_parts(a, 'f', d)
            if w is None:
                return None
            c, b, A, Bv, t, sh = w
            return V('where(%s, %s, %s)' % (c.s, a.s, b.s),
                     'WHERE(%s, %s, %s, %r)' % (c.np, A.np, Bv.np, t), t, sh,
                     E=max(A.E, Bv.E), B=max(A.B, Bv.B), needs=a.needs | b.needs | c.needs)
        if op == 'clamp':
            lo = r.choice([-2.0, -1.0, 0.0, -0.5])
            hi = r.choice([0.5, 1.0, 2.0, 3.0])
            return V('clamp(%s, %s, %s)' % (a.s, lit(lo, a.ty), lit(hi, a.ty)),
                     'CLAMP(%s, %r, %r, %r)' % (a.np, lo, hi, a.ty), a.ty, a.shape,
                     E=a.E, B=max(abs(lo), abs(hi)), needs=a.needs)
        if op == 'cast':
            if r.random() < 0.5:
                return self.conv(a, r.choice(FLOATS))
            return self.conv(self.narrow(self.expr('i', d - 1)), r.choice(FLOATS))
        if op == 'exp':
            if a.ty != 'f32' and a.ty != 'f64':
                a = self.conv(a, 'f32')
            c = V('clamp(%s, %s, %s)' % (a.s, lit(-4.0, a.ty), lit(3.0, a.ty)),
                  'CLAMP(%s, -4.0, 3.0, %r)' % (a.np, a.ty), a.ty, a.shape, E=a.E, B=4.0,
                  needs=a.needs)
            Bo = math.exp(3.0)
            E = Bo * (c.E * (1 + c.E) + 2 ** -19 + 2 ** -22 * 4.0) + EPS[a.ty] * Bo
            return V('exp(%s)' % c.s, 'EXP(%s, %r)' % (c.np, a.ty), a.ty, a.shape,
                     E=E, B=Bo, needs=a.needs)
        if op == 'fma':
            b, c = self.expr('f', d - 1), self.expr('f', d - 1)
            t = promote(promote(a.ty, b.ty), c.ty)
            sh = bshape(bshape(a.shape, b.shape) or (), c.shape)
            if sh is None or bshape(a.shape, b.shape) is None:
                return None
            A, Bv, Cv = self.conv(a, t), self.conv(b, t), self.conv(c, t)
            B = A.B * Bv.B + Cv.B
            E = A.E * Bv.B + Bv.E * A.B + A.E * Bv.E + Cv.E
            # (npsem's FMA rounds twice: its model is within eps * B)
            if E > 0 or self.g.numpy:
                E += EPS[t] * B
            if B > LIM[t]:
                return None
            return V('fma(%s, %s, %s)' % (a.s, b.s, c.s),
                     'FMA(%s, %s, %s, %r)' % (A.np, Bv.np, Cv.np, t), t, sh, E=E, B=B,
                     needs=a.needs | b.needs | c.needs)
        if op == 'floor':
            if a.E > 0:
                return None
            f = r.choice(['floor', 'ceil'])
            return V('%s(%s)' % (f, a.s), '%s(%s, %r)' % (f.upper(), a.np, a.ty), a.ty,
                     a.shape, B=a.B + 1, needs=a.needs)
        if op == 'red':
            return self.reduce_bcast(a)
        if op == 'cumsum':
            return self.cumsum(a)
        return None

    def full(self, v):
        """v broadcast to the kernel's full shape (for reductions)."""
        if v.shape == self.S:
            return v
        if len(self.S) == 0:
            return None
        return V('broadcast_to(%s, [%s])' % (v.s, ', '.join(map(str, self.S))),
                 'np.broadcast_to(%s, (%s,))' % (v.np, ', '.join(map(str, self.S))),
                 v.ty, self.S, v.E, v.B, v.lo, v.hi, v.needs)

    def reduce_bcast(self, a):
        """A reduction along an axis of the full shape, broadcast back
        (keepdims=true or [:, None] / [None, :])."""
        if a.needs or not self.S:
            return None
        a = self.full(a)
        ax = self.r.randrange(len(self.S))
        n = self.dmax(self.S[ax])
        f = self.r.choice(['sum', 'max', 'min', 'sum'])
        t = acc_type(a.ty) if f == 'sum' else a.ty
        if f == 'sum':
            if isf(t):
                B = a.B * n
                E = n * a.E + EPS[t] * n * n * a.B
                if B > LIM[t]:
                    return None
            else:
                B = 0
                E = 0
        else:
            B, E = a.B, a.E
        keep = self.r.random() < 0.5 or len(self.S) == 1
        nps = {'sum': 'SUM', 'max': 'RMAX', 'min': 'RMIN'}[f]
        if keep:
            s = '%s(%s, %d, keepdims=true)' % (f, a.s, ax)
            sh = tuple(1 if i == ax else d for i, d in enumerate(self.S))
            np = '%s(%s, %d, True, %r)' % (nps, a.np, ax, a.ty)
        else:
            idx = ', '.join('None' if i == ax else ':' for i in range(len(self.S)))
            s = '%s(%s, %d)[%s]' % (f, a.s, ax, idx)
            sh = tuple(1 if i == ax else d for i, d in enumerate(self.S))
            np = '%s(%s, %d, False, %r)[%s]' % (nps, a.np, ax, a.ty, idx)
        if isf(t):
            return V(s, np, t, sh, E=E, B=B)
        if f == 'sum':
            lo, hi = a.lo * n, a.hi * n
            return V(s, np, t, sh, lo=lo, hi=hi)
        return V(s, np, t, sh, lo=a.lo, hi=a.hi)

    def cumsum(self, a):
        if a.needs or not self.S:
            return None
        a = self.full(a)
        ax = self.r.randrange(len(self.S))
        n = self.dmax(self.S[ax])
        f = self.r.choice(['cumsum', 'cumsum', 'cummax', 'cummin'])
        if f != 'cumsum' and a.ty != 'bool':
            # a running max/min: exact, within the operand's bounds
            s = '%s(%s, %d)' % (f, a.s, ax)
            np = '%s(%s, %d, %r)' % (f.upper(), a.np, ax, a.ty)
            return V(s, np, a.ty, self.S, E=a.E, B=a.B, lo=a.lo, hi=a.hi)
        t = acc_type(a.ty)
        s = 'cumsum(%s, %d)' % (a.s, ax)
        np = 'CUMSUM(%s, %d, %r)' % (a.np, ax, a.ty)
        if isf(t):
            B = a.B * n
            if B > LIM[t]:
                return None
            return V(s, np, t, self.S, E=n * a.E + EPS[t] * n * n * a.B, B=B)
        return V(s, np, t, self.S, lo=a.lo * n, hi=a.hi * n)

    def scalar_divide(self, op, a):
        """a / d or a % d by a divisor made of a runtime scalar parameter
        (the lowering inverts such divisors once: plan/divisor.c): its low
        bits plus 1, at most half a's type's maximum, negated half the time
        for signed types; never 0."""
        t, p = a.ty, self.ch(self.scalars)
        m = min(TR[t][1] >> 1, self.ch([7, 255, 0x7fff, 0x3fffffff]))
        neg = t[0] == 'i' and self.r.random() < 0.5
        ps = p.s if t == 'i32' else '(%s as %s)' % (p.s, t)
        pn = p.np if t == 'i32' else 'CAST(%s, "i32", %r)' % (p.np, t)
        den = V('%s((%s & %d) + 1)' % ('-' if neg else '', ps, m),
                '%sBIN("+", BIN("&", %s, arr(%d, %r), %r), arr(1, %r), %r)%s' % (
                    'BIN("-", arr(0, %r), ' % t if neg else '', pn, m, t, t, t, t,
                    ', %r)' % t if neg else ''),
                t, (), lo=-m - 1 if neg else 1, hi=-1 if neg else m + 1)
        v = self.iop(op, a, den)
        if v:
            if op == '/':
                v.lo, v.hi = min(a.lo, -a.hi if neg else 0), max(a.hi, -a.lo if neg else 0)
            else:
                v.lo, v.hi = (-m if a.lo < 0 else 0), (m if a.hi > 0 else 0)
        return v

    def iexpr(self, d):
        r = self.r
        op = r.choice(['+', '-', '*', '&', '|', '^', '<<', '>>', '/', '%', 'max',
                       'min', 'abs', 'neg', '~', 'where', 'cast', 'f2i', 'red',
                       'cumsum', 'argm', 'umulhi', 'boolcast', 'clamp'])
        a = self.expr('i', d - 1)
        if op in ('+', '-', '*', '&', '|', '^'):
            b = self.const(a.ty) if r.random() < 0.3 else self.expr('i', d - 1)
            if b.weak and a.ty[0] == 'u' and b.lo < 0:
                return None
            return self.iop(op, a, b) if r.random() < 0.5 or b.weak else self.iop(op, b, a)
        if op in ('<<', '>>'):
            b = self.expr('i', d - 1)
            t = a.ty
            amt = V('((%s as %s) & %d)' % (b.s, t, BITS[t] - 1),
                    'BIN("&", CAST(%s, %r, %r), arr(%d, %r), %r)' % (b.np, b.ty, t, BITS[t] - 1,
                                                              t, t),
                    t, b.shape, lo=0, hi=BITS[t] - 1, needs=b.needs)
            v = self.iop(op, a, amt)
            if v and op == '>>':
                v.lo, v.hi = min(a.lo, 0), max(a.hi, 0)
            return v
        if op in ('/', '%'):
            if self.scalars and r.random() < 0.4:
                return self.scalar_divide(op, a)
            b = self.expr('i', d - 1)
            t = promote(a.ty, b.ty)
            if t != a.ty:
                return None
            den = V('((%s & 15) + 1)' % b.s,
                    'BIN("+", BIN("&", %s, arr(15, %r), %r), arr(1, %r), %r)' % (
                        b.np, b.ty, b.ty, b.ty, b.ty), b.ty, b.shape, lo=1, hi=16,
                    needs=b.needs)
            v = self.iop(op, a, den)
            if v:
                if op == '/':
                    v.lo, v.hi = min(a.lo, 0), max(a.hi, 0)
                else:
                    v.lo, v.hi = (-15 if a.lo < 0 else 0), (15 if a.hi > 0 else 0)
            return v
        if op in ('max', 'min', 'clamp'):
            b = self.expr('i', d - 1) if op != 'clamp' else self.const(a.ty)
            t = a.ty if b.weak else promote(a.ty, b.ty)
            sh = bshape(a.shape, b.shape)
            if sh is None:
                return None
            A, Bv = self.conv(a, t), self.conv(b, t)
            if op == 'clamp':
                hi = Bv.lo + self.ch([0, 1, 10, 100])
                if hi > TR[t][1]:
                    return None
                return V('clamp(%s, %s, %s)' % (a.s, b.s, lit(hi, t)),
                         'CLAMP(%s, %s, arr(%d, %r), %r)' % (A.np, Bv.np, hi, t, t), t, sh,
                         lo=Bv.lo, hi=hi, needs=a.needs)
            f = 'maximum' if op == 'max' else 'minimum'
            return V('%s(%s, %s)' % (f, a.s, b.s),
                     '%s(%s, %s, %r)' % ('MAXI' if op == 'max' else 'MINI', A.np, Bv.np, t),
                     t, sh, lo=min(A.lo, Bv.lo), hi=max(A.hi, Bv.hi), needs=a.needs | b.needs)
        if op == 'abs':
            lo, hi = (0, max(abs(a.lo), abs(a.hi))) if a.lo > TR[a.ty][0] else TR[a.ty]
            return V('abs(%s)' % a.s, 'ABS(%s, %r)' % (a.np, a.ty), a.ty, a.shape,
                     lo=lo, hi=hi, needs=a.needs)
        if op == 'neg':
            if a.ty[0] == 'u':
                return None
            lo, hi = (-a.hi, -a.lo) if a.lo > TR[a.ty][0] else TR[a.ty]
            return V('(-%s)' % a.s, 'NEG(%s, %r)' % (a.np, a.ty), a.ty, a.shape,
                     lo=lo, hi=hi, needs=a.needs)
        if op == '~':
            return V('(~%s)' % a.s, 'INV(%s, %r)' % (a.np, a.ty), a.ty, a.shape,
                     lo=-a.hi - 1 if a.ty[0] == 'i' else TR[a.ty][1] - a.hi,
                     hi=-a.lo - 1 if a.ty[0] == 'i' else TR[a.ty][1] - a.lo, needs=a.needs)
        if op == 'where':
            w = self.where_parts(a, 'i', d)
            if w is None:
                return None
            c, b, A, Bv, t, sh = w
            return V('where(%s, %s, %s)' % (c.s, a.s, b.s),
                     'WHERE(%s, %s, %s, %r)' % (c.np, A.np, Bv.np, t), t, sh,
                     lo=min(A.lo, Bv.lo), hi=max(A.hi, Bv.hi),
                     needs=a.needs | b.needs | c.needs)
        if op == 'cast':
            return self.conv(a, r.choice(INTS))
        if op == 'boolcast':
            c = self.mask(d - 1)
            return self.conv(c, r.choice(INTS))
        if op == 'f2i':
            f = self.expr('f', d - 1)
            if f.E > 0:
                return None
            return self.f2i(f, r.choice(INTS))
        if op == 'red':
            return self.reduce_bcast(a)
        if op == 'cumsum':
            return self.cumsum(a)
        if op == 'argm':
            src = self.expr(r.choice('if'), d - 1)
            if src.needs or not self.S or src.E > 0 or (isf(src.ty) and self.g.special_ok):
                return None
            src = self.full(src)
            ax = r.randrange(len(self.S))
            f = r.choice(['argmax', 'argmin'])
            self.argm = True
            sh = tuple(1 if i == ax else dd for i, dd in enumerate(self.S))
            return V('%s(%s, %d, keepdims=true)' % (f, src.s, ax),
                     '%s(%s, %d, True, %r)' % (f.upper(), src.np, ax, src.ty), 'i32', sh,
                     lo=0, hi=self.dmax(self.S[ax]) - 1)
        if op == 'umulhi':
            if a.ty not in ('i32', 'u32'):
                return None
            b = self.conv(self.expr('i', d - 1), a.ty)
            sh = bshape(a.shape, b.shape)
            if sh is None or self.g.numpy:
                return None
            return V('umulhi(%s, %s)' % (a.s, b.s), None, a.ty, sh, needs=a.needs | b.needs)
        return None

    def mask(self, d):
        """A bool tile: comparisons combined with & | ^ !."""
        r = self.r
        if d <= 0 or r.random() < 0.45:
            return self.atom()
        op = r.choice(['&', '|', '^', '!', '&'])
        a = self.mask(d - 1)
        if op == '!':
            return V('(!%s)' % a.s, 'NOT(%s)' % a.np, 'bool', a.shape, needs=a.needs)
        b = self.mask(d - 1)
        sh = bshape(a.shape, b.shape)
        if sh is None:
            return a
        npop = {'&': 'np.logical_and', '|': 'np.logical_or', '^': 'np.logical_xor'}[op]
        return V('(%s %s %s)' % (a.s, op, b.s), '%s(%s, %s)' % (npop, a.np, b.np), 'bool',
                 sh, needs=a.needs | b.needs)

    def atom(self):
        r = self.r
        for _ in range(10):
            k = r.random()
            if k < 0.55 and self.idx:
                a = r.choice(self.idx)
            elif k < 0.85:
                a = self.expr('i', 1)
            else:
                a = self.expr('f', 1)
                if a.E > 0:
                    continue
            w = r.random()
            if w < 0.35:
                b = self.const(a.ty)
                if a.ty[0] == 'u' and b.lo < 0:
                    continue
                if not isf(a.ty) and self.idx and a in self.idx:
                    c = self.ch(self.g.edge_consts)
                    b = V(str(c), 'arr(%d, %r)' % (c, a.ty), a.ty, (), lo=c, hi=c, weak=True)
            elif w < 0.6 and self.scalars and not isf(a.ty):
                b = r.choice(self.scalars)
            elif w < 0.8 and self.idx and not isf(a.ty):
                b = r.choice(self.idx)
            else:
                b = self.expr('f' if isf(a.ty) else 'i', 1)
            op = r.choice(CMPS)
            v = self.cmp(op, a, b) if r.random() < 0.5 else self.cmp(FLIP[op], b, a)
            if v is not None:
                return v
        return V('(%s >= 0)' % self.idx[0].s, 'CMP(">=", %s, 0, "i32")' % self.idx[0].np,
                 'bool', self.idx[0].shape)

    # ------------------------------------------------------------ memory
    def load(self, ptr, idx, ty, mask=None, other=None, range_=(-4, 4), ilo=None, ihi=None,
             shape=None):
        """let tN = load(ptr + idx, mask=, other=): other None with a mask
        leaves masked-off elements unspecified (needs = {mask}); a mask
        computed from unspecified elements is made specified first."""
        mask = self.specified(mask)
        s = 'load(%s + %s' % (ptr, idx.s)
        if mask is not None:
            s += ', mask=%s' % mask.s
            if other is not None:
                s += ', other=%s' % lit(other, ty)
        s += ')'
        np = 'LOAD(%s, %s, %s, %s, %r)' % (ptr, idx.np, mask.np if mask is not None else 'None',
                                          repr(other) if other is not None else '0', ty)
        needs = frozenset()
        if mask is not None and other is None:
            needs = frozenset([mask.s])
            self.needmasks[mask.s] = mask
        sh = shape if shape is not None else idx.shape
        if isf(ty):
            B = max(abs(range_[0]), abs(range_[1]))
            if other is not None and math.isfinite(other):
                B = max(B, abs(other))
            v = V(s, np, ty, sh, B=B, needs=needs)
        else:
            lo, hi = (ilo, ihi) if ilo is not None else TR[ty]
            if other is not None:
                lo, hi = min(lo, int(other)), max(hi, int(other))
            v = V(s, np, ty, sh, lo=lo, hi=hi, needs=needs)
        return self.let(v)

    def and_needs(self, mask, needs):
        """mask (or None) and-ed with the masks in needs, in order."""
        for ns in sorted(needs):
            m = self.needmasks[ns]
            mask = m if mask is None else V('(%s & %s)' % (mask.s, m.s),
                                             'np.logical_and(%s, %s)' % (mask.np, m.np),
                                             'bool', bshape(mask.shape, m.shape))
        return mask

    def specified(self, mask, needs=frozenset()):
        """mask (or None) and-ed with each mask in needs (those of a value
        it guards), then, where it is itself computed from unspecified
        elements (of loads without `other`), with each mask those need
        that it does not already imply (whose `&` terms are among its
        own: `(m & e)` implies m), so that it is false wherever they are
        unspecified; with nothing to add, the same text."""
        own = mask.needs if mask is not None else frozenset()
        mask = self.and_needs(mask, needs)
        if mask is None:
            return None
        have = conjuncts(mask.s)
        return self.and_needs(mask, [ns for ns in own if not conjuncts(ns) <= have])

    def store(self, ptr, idx, v, mask=None, shapeop=None):
        """store(ptr + idx, v as T, mask=...), the mask made specified and
        and-ed with every mask v's unspecified elements need; shapeop
        applies trans / reshape / permute to index, value and mask
        alike."""
        t = self.bufs[ptr]['ty']
        v = self.conv(v, t) if not isf(t) or isf(v.ty) else self.conv(v, t)
        mask = self.specified(mask, v.needs)
        if shapeop is not None:
            full = bshape(idx.shape, v.shape)
            if mask is not None:
                full = bshape(full, mask.shape)
            idx, v = self.full_to(idx, full), self.full_to(v, full)
            if mask is not None:
                mask = self.full_to(mask, full)
            idx, v = shapeop(idx), shapeop(v)
            if mask is not None:
                mask = shapeop(mask)
        s = 'store(%s + %s, %s%s);' % (ptr, idx.s, v.s, ', mask=%s' % mask.s if mask else '')
        np = 'STORE(%s, %s, %s, %s, %r)' % (ptr, idx.np, v.np, mask.np if mask else 'None', t)
        self.emit(s, np)
        b = self.bufs[ptr]
        b['E'] = max(b['E'], v.E)

    def full_to(self, v, shape):
        if v.shape == shape:
            return v
        return V('broadcast_to(%s, [%s])' % (v.s, ', '.join(map(str, shape))),
                 'np.broadcast_to(%s, (%s,))' % (v.np, ', '.join(map(str, shape))),
                 v.ty, shape, v.E, v.B, v.lo, v.hi, v.needs)


class Gen:
    def __init__(self, seed, numpy=False, no_contig_cmp=False, aligned_dots=False,
                 wide_dots=False, stepped=False, strided=False, big_dots=False):
        self.r = random.Random(seed)
        self.big_dots = big_dots
        self.stepped = stepped
        self.strided = strided
        self.seed = seed
        self.numpy = numpy
        self.no_contig_cmp = no_contig_cmp
        self.aligned_dots = aligned_dots
        self.wide_dots = wide_dots
        self.edge_consts = [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 100]
        self.special_ok = False

    # the cases' integer arguments near the block sizes' edges
    def sizes(self, blocks, k=4, zero=True):
        r = self.r
        out = []
        b = r.choice(blocks)
        cands = [1, b - 1, b, b + 1, 2 * b + 3, 16, 17, 100, 3 * b - 5, 48, 64, 200]
        if zero:
            cands.append(0)
        for _ in range(k):
            out.append(max(0 if zero else 1, r.choice(cands)))
        return out

    def tune(self, dims, warps):
        parts = ['%s = [%s]' % (d, ', '.join(map(str, vs))) for d, vs in dims.items()
                 if isinstance(d, str)]
        parts.append('warps = [%s]' % ', '.join(map(str, warps)))
        return '@tune(%s)' % ', '.join(parts)

    def configs(self, dims, warps):
        keys = [d for d in dims if isinstance(d, str)]
        out = [[]]
        for k in keys:
            out = [o + ['%s=%d' % (k, v)] for o in out for v in dims[k]]
        return [','.join(o + ['warps=%d' % w]) for o in out for w in warps]

    def case_lines(self, k, cases, configs):
        """One // diff: line per case; config= picks one of the
        configurations (those whose @require holds: k.holds)."""
        lines = []
        for i, c in enumerate(cases):
            kv = dict(c)
            ok = [x for x in configs if k.holds(x, kv)]
            if len(configs) > 1 and ok:
                kv['config'] = ok[(i + self.r.randrange(len(ok))) % len(ok)]
            for name, b in k.bufs.items():
                if b['E'] > 0:
                    kv['atol.' + name] = '%.3g' % (2.5 * b['E'])
            lines.append('// diff: %s %s' % (k.name, ' '.join('%s=%s' % x for x in kv.items())))
        return lines

    # ------------------------------------------------------------ templates
    def ew1d(self, name):
        r = self.r
        blocks = r.choice([[16, 32], [64, 128], [128], [32, 256], [512], [16], [48], [100, 24]])
        warps = r.choice([[1], [2], [4], [1, 4], [2, 8], [4, 8]])
        if self.numpy:
            blocks, warps = [r.choice([16, 32, 64, 128])], [r.choice([1, 2, 4])]
        dims = {'BLOCK': blocks}
        k = Kernel(self, name, r, dims, max(blocks))
        k.needmasks = {}
        k.S = ('BLOCK',)
        nin = r.randint(1, 3)
        nout = r.randint(1, 2)
        tys = INTS + FLOATS + ['f32', 'i32']
        if self.numpy:
            tys = [t for t in tys if t != 'bf16']   # no numpy bf16 buffers
        intys = [r.choice(tys) for _ in range(nin)]
        outys = [r.choice(tys) for _ in range(nout)]
        for i, t in enumerate(outys):
            k.buf('out%d' % i, t, True)
        for i, t in enumerate(intys):
            k.buf('x%d' % i, t, False)
        k.param('n', 'i32')
        npar = r.randint(0, 2)
        for i in range(npar):
            k.param('p%d' % i, 'i32')
        hasf = r.random() < 0.3
        if hasf:
            k.param('s', 'f32')
        # cases
        ns = self.sizes(blocks, r.randint(2, 4), zero=not self.numpy)
        if self.numpy:
            ns = [min(x, blocks[0]) for x in ns]
        cases = []
        for j, n in enumerate(ns):
            c = [('n', n)]
            u = r.random()
            al16, al8 = u < 0.35, 0.35 <= u < 0.55
            if al16:
                c[0] = ('n', max(16, n // 16 * 16))
            if al8:
                c[0] = ('n', weak8(n))
            for i in range(npar):
                v = r.choice([0, 1, 5, 16, 17, 31, 32, n - 1, n, n + 1, -1, n // 2])
                c.append(('p%d' % i, v // 16 * 16 if al16 else weak8(v) if al8 else v))
            if hasf:
                c.append(('s', r.choice(['0.5', '-1.5', '2.0', '0.0'])))
            n = c[0][1]
            c.append(('len', max(n, 1) + 8 if not self.numpy else blocks[0] + 8))
            cases.append(c)
        rng_ = {}
        for i, t in enumerate(intys):
            if t in INTS and r.random() < 0.6:
                lo, hi = r.choice([(-100, 100), (0, 50), (-3, 3)])
                lo = max(lo, TR[t][0])
                rng_['x%d' % i] = (lo, hi)
        for c in cases:
            c += [('range.' + b, '%d,%d' % lh) for b, lh in sorted(rng_.items())]
        # body
        if self.numpy:
            k.emit('let offs = arange(0, BLOCK);', 'offs = np.arange(BLOCK, dtype=np.int32)')
        else:
            k.emit('let offs = program_id(0) * BLOCK + arange(0, BLOCK);')
        offs = V('offs', 'offs', 'i32', ('BLOCK',), lo=0, hi=1 << 20, contig=True)
        k.idx = [offs]
        nv = V('n', 'n', 'i32', (), lo=0, hi=1 << 20)
        k.scalars = [nv] + [V('p%d' % i, 'p%d' % i, 'i32', (), lo=-1, hi=1 << 20)
                            for i in range(npar)]
        if r.random() < 0.5:
            k.emit('let i = arange(0, BLOCK);', 'i = np.arange(BLOCK, dtype=np.int32)')
            k.idx.append(V('i', 'i', 'i32', ('BLOCK',), lo=0, hi=4096, contig=True))
        if r.random() < 0.4:
            d = r.choice([3, 7, 16])
            k.emit('let q = offs %% %d;' % d, 'q = offs %% %d' % d)
            k.idx.append(V('q', 'q', 'i32', ('BLOCK',), lo=0, hi=d - 1))
        k.emit('let m = offs < n;', 'm = offs < n')
        m = V('m', 'm', 'bool', ('BLOCK',))
        for i, t in enumerate(intys):
            lo, hi = rng_.get('x%d' % i, (None, None))
            for _ in range(r.randint(1, 2)):
                pat = r.choice(['plain', 'plain', 'shift', 'rev', 'gather', 'extra'])
                idx, mk = offs, m
                if pat == 'shift':
                    sft = r.randint(1, 5)
                    idx = V('(offs + %d)' % sft, '(offs + %d)' % sft, 'i32', ('BLOCK',),
                            lo=0, hi=1 << 20)
                elif pat == 'rev':
                    idx = V('(n - 1 - offs)', '(n - 1 - offs)', 'i32', ('BLOCK',), lo=0,
                            hi=1 << 20)
                elif pat == 'gather':
                    idx = V('(offs / 2)', '(offs // 2)', 'i32', ('BLOCK',), lo=0, hi=1 << 20)
                elif pat == 'extra':
                    e = k.mask(1)
                    mk = k.specified(V('(m & %s)' % e.s, 'np.logical_and(m, %s)' % e.np,
                                       'bool', bshape(('BLOCK',), e.shape), needs=e.needs))
                other = None
                if r.random() < 0.6:
                    other = r.choice(FCONSTS) if isf(t) else r.choice([0, 1, 7])
                    if isf(t) and not self.numpy and r.random() < 0.1:
                        other = r.choice([float('inf'), float('-inf')])
                if isf(t) and other is not None and math.isinf(other):
                    v = k.load('x%d' % i, idx, t, mk, None)
                    v = k.let(V('load(x%d + %s, mask=%s, other=%s)' % (
                        i, idx.s, mk.s, '-inf' if other < 0 else 'inf'), None, t,
                        ('BLOCK',), B=4.0))
                    v.B = 4.0
                    v.np = None
                    k.infs = True
                else:
                    v = k.load('x%d' % i, idx, t, mk, other, ilo=lo, ihi=hi)
                k.leaves.append(v)
        if not any(isf(v.ty) for v in k.leaves):
            k.leaves.append(k.conv(k.narrow(k.leaves[0]) if k.leaves[0].ty != 'bool'
                                   else k.leaves[0], 'f32'))
        if not any(v.ty in INTS for v in k.leaves):
            k.leaves.append(k.conv(offs, r.choice(INTS)))
        if hasf:
            k.leaves.append(V('s', 's', 'f32', (), B=2.0))
        depth = r.randint(2, 4)
        for o in range(nout):
            t = outys[o]
            v = k.expr('f' if isf(t) else 'i', depth)
            if v.ty == 'bool' or (isf(v.ty) and not isf(t) and v.E > 0):
                v = k.expr('i', depth)
            if isf(v.ty) and not isf(t):
                v = k.f2i(v, t) if v.E == 0 else k.conv(k.narrow(k.expr('i', 1)), t)
            smask = m
            if r.random() < 0.4:
                e = k.mask(1)
                smask = V('(m & %s)' % e.s, 'np.logical_and(m, %s)' % e.np, 'bool',
                          bshape(('BLOCK',), e.shape), needs=e.needs)
            if o == 1 and r.random() < 0.5 and not self.numpy:
                # a scalar reduction per program
                w = k.expr('f' if isf(t) else 'i', 2)
                if w.needs:
                    w = k.leaf('f' if isf(t) else 'i')
                if not w.needs:
                    w = k.full(w)
                    f = r.choice(['sum', 'max', 'min'])
                    tt = acc_type(w.ty) if f == 'sum' else w.ty
                    if isf(tt):
                        E, B = (w.E, w.B) if f != 'sum' else (
                            max(blocks) * w.E + EPS[tt] * max(blocks) ** 2 * w.B,
                            w.B * max(blocks))
                        if not (f == 'sum' and B > LIM[tt]):
                            rv = V('%s(%s, 0)' % (f, w.s), None, tt, (), E=E, B=B)
                            if isf(t) or rv.E == 0:
                                if not isf(t):
                                    rv = k.f2i(rv, t)
                                k.store('out%d' % o, V('program_id(0)', None, 'i32', ()), rv)
                                continue
                    else:
                        rv = V('%s(%s, 0)' % (f, w.s), None, tt, ())
                        k.store('out%d' % o, V('program_id(0)', None, 'i32', ()), rv)
                        continue
            k.store('out%d' % o, offs, v, smask)
        return k, cases, self.tune(dims, warps), self.configs(dims, warps), \
            'grid(1)' if self.numpy else 'grid(cdiv(n, BLOCK))'

    def stencil_load(self, k, i, t, other, rng_):
        """tile2d's neighbour of each element, as a stencil reads it: row
        r + dr, column c + dc (dr, dc in -2..2, not both 0), masked the way
        users write it: each index below its bound (the block's last
        rows and columns pass R and C) and, where the shift is negative
        (at times where it is not), at least 0; the terms in random order,
        at times gathered into named row and column masks first."""
        r = self.r
        dr, dc = 0, 0
        while dr == 0 and dc == 0:
            dr, dc = r.randint(-2, 2), r.randint(-2, 2)

        def sh(v, d):
            return v if d == 0 else '(%s %s %d)' % (v, '+' if d > 0 else '-', abs(d))
        rs, cs = sh('r', dr), sh('c', dc)
        terms = []
        for ix, d, bound, ax in ((rs, dr, 'R', '[:, None]'), (cs, dc, 'C', '[None, :]')):
            row = []
            if d < 0 or r.random() < 0.3:
                row.append(('%s >= 0' % ix, '%s >= 0' % ix))
            row.append(('%s < %s' % (ix, bound), '%s < %s' % (ix, bound)))
            if len(row) == 2 and r.random() < 0.5:
                nm = 'sm%d_%s' % (i, 'r' if ax == '[:, None]' else 'c')
                k.emit('let %s = (%s) & (%s);' % (nm, row[0][0], row[1][0]),
                       '%s = np.logical_and(%s, %s)' % (nm, row[0][1], row[1][1]))
                terms.append(('%s%s' % (nm, ax), '%s%s' % (nm, ax)))
            else:
                terms += [('(%s)%s' % (a, ax), '(%s)%s' % (b, ax)) for a, b in row]
        r.shuffle(terms)
        ms = ' & '.join(a for a, _ in terms)
        mnp = terms[0][1]
        for _, b in terms[1:]:
            mnp = 'np.logical_and(%s, %s)' % (mnp, b)
        k.emit('let sm%d = %s;' % (i, ms), 'sm%d = %s' % (i, mnp))
        mk = V('sm%d' % i, 'sm%d' % i, 'bool', ('BM', 'BN'))
        idx = V('(%s[:, None] * C + %s[None, :])' % (rs, cs),
                '(%s[:, None] * C + %s[None, :])' % (rs, cs), 'i32', ('BM', 'BN'),
                lo=-(1 << 30), hi=1 << 30)
        return k.load('x%d' % i, idx, t, mk, other, rng_)

    def tile2d(self, name):
        r = self.r
        bm = r.choice([[16], [32], [8, 32], [64], [16, 64], [4], [12], [24, 40]])
        bn = r.choice([[16], [32], [64], [16, 128], [8], [32, 64], [80], [24, 16]])
        warps = r.choice([[1], [2], [4], [1, 4], [8]])
        if self.numpy:
            bm, bn, warps = [r.choice([4, 16, 32])], [r.choice([8, 16, 32])], [r.choice([1, 4])]
        dims = {'BM': bm, 'BN': bn}
        k = Kernel(self, name, r, dims, max(bm + bn))
        k.needmasks = {}
        k.S = ('BM', 'BN')
        nin = r.randint(1, 3)
        tys = [t for t in INTS + FLOATS + ['f32'] if t != 'bf16' or not self.numpy]
        intys = [r.choice(tys) for _ in range(nin)]
        outt = [r.choice(tys) for _ in range(2)]
        k.buf('out0', outt[0], True)
        k.buf('out1', outt[1], True)
        for i, t in enumerate(intys):
            k.buf('x%d' % i, t, False)
        k.param('R', 'i32')
        k.param('C', 'i32')
        k.param('p0', 'i32')
        cases = []
        for j in range(r.randint(2, 3)):
            if self.numpy:
                R, C = bm[0], bn[0]
                R, C = r.choice([R, R - 1, 1]), r.choice([C, C - 1, 3])
                R, C = max(R, 1), max(C, 1)
            else:
                R = r.choice(self.sizes(bm, 1)[0:1] + [1, 33, 50, 16, 0])
                C = r.choice(self.sizes(bn, 1)[0:1] + [1, 40, 100, 32, 0])
            u = r.random()
            al16 = u < 0.3 and not self.numpy
            al8 = 0.3 <= u < 0.5 and not self.numpy
            if al16:
                R, C = max(16, R // 16 * 16), max(16, C // 16 * 16)
            if al8:
                R, C = weak8(R), weak8(C)
            p0 = r.choice([0, 1, 3, 16, 17, R, C, R // 2])
            if al16:
                p0 = p0 // 16 * 16
            if al8:
                p0 = weak8(p0)
            nb = max(1, -(-max(R, 1) // min(bm))) * max(1, -(-max(C, 1) // min(bn)))
            # out1: a partial reduction per program, or a cumsum per row
            l1 = max(max(bm + bn) * nb, (R + max(bm)) * (C + max(bn))) + 8
            c = [('R', R), ('C', C), ('p0', p0), ('len', max(R * C, 1) + 8),
                 ('len.out1', l1 if not self.numpy else max(bm[0], bn[0]) * bn[0] + 8)]
            if self.numpy:
                c[3] = ('len', max(bm[0] * bn[0], R * C) + 8)
            cases.append(c)
        if self.numpy:
            k.emit('let r = arange(0, BM);', 'r = np.arange(BM, dtype=np.int32)')
            k.emit('let c = arange(0, BN);', 'c = np.arange(BN, dtype=np.int32)')
            k.emit('let pid0 = 0;', 'pid0 = 0')
            k.emit('let pid1 = 0;', 'pid1 = 0')
            k.emit('let np1 = 1;', 'np1 = 1')
        else:
            k.emit('let pid0 = program_id(0);')
            k.emit('let pid1 = program_id(1);')
            k.emit('let np1 = num_programs(1);')
            k.emit('let r = pid0 * BM + arange(0, BM);')
            k.emit('let c = pid1 * BN + arange(0, BN);')
        rr = V('r[:, None]', 'r[:, None]', 'i32', ('BM', 1), lo=0, hi=1 << 20, contig=True)
        cc = V('c[None, :]', 'c[None, :]', 'i32', (1, 'BN'), lo=0, hi=1 << 20, contig=True)
        k.idx = [rr, cc]
        k.scalars = [V(x, x, 'i32', (), lo=0, hi=1 << 20) for x in ('R', 'C', 'p0')]
        k.emit('let m = (r[:, None] < R) & (c[None, :] < C);',
               'm = np.logical_and(r[:, None] < R, c[None, :] < C)')
        m = V('m', 'm', 'bool', ('BM', 'BN'))
        full_idx = V('(r[:, None] * C + c[None, :])', '(r[:, None] * C + c[None, :])', 'i32',
                     ('BM', 'BN'), lo=0, hi=1 << 30)
        for i, t in enumerate(intys):
            pat = r.choice(['tile', 'tile', 'colmajor', 'row', 'col', 'shift2d', 'shift2d'])
            other = (r.choice(FCONSTS) if isf(t) else r.choice([0, 1, 5])) \
                if r.random() < 0.8 else None
            rng_ = (-4, 4)
            if pat == 'tile':
                v = k.load('x%d' % i, full_idx, t, m, other, rng_)
            elif pat == 'shift2d':
                v = self.stencil_load(k, i, t, other, rng_)
            elif pat == 'colmajor':
                idx = V('(c[None, :] * R + r[:, None])', '(c[None, :] * R + r[:, None])',
                        'i32', ('BM', 'BN'), lo=0, hi=1 << 30)
                v = k.load('x%d' % i, idx, t, m, other, rng_)
            elif pat == 'row':
                mm = V('(c < C)', '(c < C)', 'bool', ('BN',))
                v = k.load('x%d' % i, V('c', 'c', 'i32', ('BN',)), t, mm, other, rng_)
                v = V(v.s + '[None, :]', v.np + '[None, :]', v.ty, (1, 'BN'), v.E, v.B,
                      v.lo, v.hi, frozenset([m.s]) if v.needs else frozenset())
                k.needmasks[m.s] = m
            else:
                mm = V('(r < R)', '(r < R)', 'bool', ('BM',))
                v = k.load('x%d' % i, V('r', 'r', 'i32', ('BM',)), t, mm, other, rng_)
                v = V(v.s + '[:, None]', v.np + '[:, None]', v.ty, ('BM', 1), v.E, v.B,
                      v.lo, v.hi, frozenset([m.s]) if v.needs else frozenset())
                k.needmasks[m.s] = m
            k.leaves.append(v)
        if not any(isf(v.ty) for v in k.leaves):
            k.leaves.append(k.conv(k.narrow(k.leaves[0]), 'f32'))
        if not any(v.ty in INTS for v in k.leaves):
            k.leaves.append(k.conv(full_idx, r.choice(INTS)))
        depth = r.randint(2, 4)
        t0 = outt[0]
        v = k.expr('f' if isf(t0) else 'i', depth)
        if isf(v.ty) and not isf(t0):
            v = k.f2i(v, t0) if v.E == 0 else k.conv(k.narrow(k.expr('i', 1)), t0)
        smask = m
        if r.random() < 0.4:
            e = k.mask(2)
            smask = V('(m & %s)' % e.s, 'np.logical_and(m, %s)' % e.np, 'bool',
                      bshape(('BM', 'BN'), e.shape), needs=e.needs)
        op = r.choice([None, 'trans', 'reshape', 'permute', None])
        if op == 'reshape' and any(b & (b - 1) for b in bn):
            op = 'trans'   # BN padded: [BM * BN] would move elements (sema rejects it)
        if op == 'trans':
            def so(x):
                return V('trans(%s)' % x.s, '(%s).T' % x.np, x.ty, x.shape[::-1], x.E, x.B,
                         x.lo, x.hi, x.needs)
        elif op == 'reshape':
            def so(x):
                return V('reshape(%s, [BM * BN])' % x.s, 'np.reshape(%s, (BM * BN,))' % x.np,
                         x.ty, ('BM * BN',), x.E, x.B, x.lo, x.hi, x.needs)
        elif op == 'permute' and min(bn) >= 2:
            def so(x):
                return V('permute(reshape(%s, [BM, BN / 2, 2]), [1, 0, 2])' % x.s,
                         'np.transpose(np.reshape(%s, (BM, BN // 2, 2)), (1, 0, 2))' % x.np,
                         x.ty, ('BN / 2', 'BM', 2), x.E, x.B, x.lo, x.hi, x.needs)
        else:
            so = None
        k.store('out0', full_idx, v, smask, shapeop=so)
        # out1: a reduction along an axis, or a cumsum
        t1 = outt[1]
        w = k.expr('f' if isf(t1) else 'i', depth - 1)
        if w.needs:
            w = k.leaf('f' if isf(t1) else 'i')
        if w.needs:
            w = k.conv(full_idx, 'i32')
        w = k.full(w)
        ax = r.randrange(2)
        f = r.choice(['sum', 'max', 'min', 'cumsum', 'argmax'])
        if f == 'argmax' and (w.E > 0 or isf(w.ty)):
            f = 'max'
        if f == 'cumsum':
            cv = k.cumsum(w)
            if cv is not None:
                if isf(cv.ty) and not isf(t1):
                    cv = k.f2i(cv, t1) if cv.E == 0 else None
                if cv is not None:
                    k.store('out1', V('(r[:, None] * (np1 * BN) + c[None, :])',
                                      '(r[:, None] * (np1 * BN) + c[None, :])', 'i32',
                                      ('BM', 'BN')),
                            cv, V('(r[:, None] < R)', '(r[:, None] < R)', 'bool', ('BM', 1)))
                    # indices r * BN + c: unique per row and column while c < BN
                    cases_fix = True
            return self.finish2d(k, cases, dims, warps, t1)
        n = self.r and k.dmax(k.S[ax])
        if f == 'argmax':
            k.argm = True
            rv = V('argmax(%s, %d)' % (w.s, ax), 'ARGMAX(%s, %d, False, %r)' % (w.np, ax, w.ty),
                   'i32', (k.S[1 - ax],), lo=0, hi=n)
        elif f == 'sum':
            tt = acc_type(w.ty)
            if isf(tt):
                rv = V('sum(%s, %d)' % (w.s, ax), 'SUM(%s, %d, False, %r)' % (w.np, ax, w.ty),
                       tt, (k.S[1 - ax],), E=n * w.E + EPS[tt] * n * n * w.B, B=n * w.B)
                if rv.B > LIM[tt]:
                    rv = V('max(%s, %d)' % (w.s, ax),
                           'RMAX(%s, %d, False, %r)' % (w.np, ax, w.ty), w.ty,
                           (k.S[1 - ax],), E=w.E, B=w.B)
            else:
                rv = V('sum(%s, %d)' % (w.s, ax), 'SUM(%s, %d, False, %r)' % (w.np, ax, w.ty),
                       tt, (k.S[1 - ax],))
        else:
            rv = V('%s(%s, %d)' % (f, w.s, ax),
                   '%s(%s, %d, False, %r)' % ('RMAX' if f == 'max' else 'RMIN', w.np, ax, w.ty),
                   w.ty, (k.S[1 - ax],), E=w.E, B=w.B, lo=w.lo, hi=w.hi)
        if isf(rv.ty) and not isf(t1):
            if rv.E > 0:
                return self.finish2d(k, cases, dims, warps, t1)
            rv = k.f2i(rv, t1)
        if ax == 1:
            # per row, one partial result per column block
            idx = V('((pid0 * np1 + pid1) * BM + arange(0, BM))',
                    '((pid0 * np1 + pid1) * BM + np.arange(BM))', 'i32', ('BM',))
            k.store('out1', idx, rv, V('(r < R)', '(r < R)', 'bool', ('BM',)))
        else:
            idx = V('((pid0 * np1 + pid1) * BN + arange(0, BN))',
                    '((pid0 * np1 + pid1) * BN + np.arange(BN))', 'i32', ('BN',))
            k.store('out1', idx, rv, V('(c < C)', '(c < C)', 'bool', ('BN',)))
        return self.finish2d(k, cases, dims, warps, t1)

    def finish2d(self, k, cases, dims, warps, t1):
        grid = 'grid(1)' if self.numpy else 'grid(cdiv(R, BM), cdiv(C, BN))'
        return k, cases, self.tune(dims, warps), self.configs(dims, warps), grid

    def row(self, name):
        r = self.r
        blocks = r.choice([[32, 64, 128], [16, 256], [64], [128, 512], [100], [48, 160]])
        warps = r.choice([[1], [2], [4], [1, 8]])
        dims = {'BLOCK': blocks}
        k = Kernel(self, name, r, dims, max(blocks))
        k.needmasks = {}
        k.S = ('BLOCK',)
        t = r.choice(FLOATS + ['f32', 'f32', 'i32', 'i64', 'u8'])
        to = r.choice([t, 'f32']) if isf(t) else t
        k.buf('out', to, True)
        k.buf('out1', to, True)
        k.buf('x', t, False)
        for p in ('R', 'C', 'stride'):
            k.param(p, 'i32')
        cases = []
        for _ in range(r.randint(2, 3)):
            C = r.choice([1, 5, 16, 17, min(blocks) - 1, min(blocks), max(blocks), 100])
            C = max(1, min(C, max(blocks)))
            R = r.choice([0, 1, 3, 7])
            st = C + r.choice([0, 0, 1, 3, 16])
            if r.random() < 0.3:
                C, st = max(16, C // 16 * 16), max(16, C // 16 * 16)
                C, st = min(C, max(blocks)), max(st, min(C, max(blocks)))
                R = R // 16 * 16
            cases.append([('R', R), ('C', C), ('stride', st), ('len', max(R, 1) * st + 8)])
        k.emit('let row = program_id(0);')
        k.emit('let c = arange(0, BLOCK);')
        k.emit('let m = c < C;')
        cv = V('c', 'c', 'i32', ('BLOCK',), lo=0, hi=4096, contig=True)
        k.idx = [cv]
        k.scalars = [V(x, x, 'i32', (), lo=0, hi=4096) for x in ('C', 'stride')]
        m = V('m', 'm', 'bool', ('BLOCK',))
        other = r.choice([0.0, -1.0, 1.0]) if isf(t) else r.choice([0, 1])
        if isf(t) and r.random() < 0.3:
            k.emit('let v = load(x + row * stride + c, mask=m, other=-inf);')
            v = V('v', None, t, ('BLOCK',), B=4.0)
            mx = k.let(V('max(v, 0)', None, t, (), B=4.0))
            sh = k.let(V('where(m, v - %s, %s)' % (mx.s, lit(0.0, t)), None, t, ('BLOCK',),
                         B=8.0))
            k.leaves += [sh]
        else:
            v = k.load('x', V('(row * stride + c)', None, 'i32', ('BLOCK',)), t, m, other)
            k.leaves.append(v)
        if r.random() < 0.5:   # weights beside the row, as layernorm's: another offset class
            wt = r.choice([t, t, 'f32', 'f16'])
            k.buf('w', wt, False)
            k.leaves.append(k.load('w', cv, wt, m, r.choice([None, 0, 1]) if r.random() < 0.7
                                   else None))
        if r.random() < 0.4:   # the row's neighbour column c + dc, masked both ways
            dc = r.choice([-3, -2, -1, 1, 2, 5])
            cs = '(c %s %d)' % ('+' if dc > 0 else '-', abs(dc))
            k.emit('let mn = (%s >= 0) & (%s < C);' % (cs, cs) if r.random() < 0.5 else
                   'let mn = (%s < C) & (%s >= 0);' % (cs, cs))
            k.leaves.append(k.load('x', V('(row * stride + %s)' % cs, None, 'i32', ('BLOCK',)),
                                   t, V('mn', None, 'bool', ('BLOCK',)),
                                   other if r.random() < 0.7 else None))
        if t in INTS:
            k.leaves.append(k.conv(k.narrow(v), 'f32'))
        else:
            k.leaves.append(k.conv(cv, r.choice(INTS)))
        e = k.expr('f' if isf(to) else 'i', r.randint(2, 3))
        if isf(e.ty) and not isf(to):
            e = k.f2i(e, to) if e.E == 0 else k.conv(cv, to)
        k.store('out', V('(row * stride + c)', None, 'i32', ('BLOCK',)), e, m)
        w = k.expr('f' if isf(to) else 'i', 2)
        if w.needs:
            w = v
        w = k.full(w)
        f = r.choice(['sum', 'max', 'min'])
        tt = acc_type(w.ty) if f == 'sum' else w.ty
        n = max(blocks)
        E = (n * w.E + EPS[tt] * n * n * w.B) if (isf(tt) and f == 'sum') else w.E
        rv = V('%s(%s, 0)' % (f, w.s), None, tt, (), E=E, B=w.B * n)
        if isf(rv.ty) and not isf(to):
            rv = k.f2i(rv, to) if rv.E == 0 else k.conv(V('C', None, 'i32', ()), to)
        if isf(rv.ty) and rv.B > LIM[rv.ty]:
            rv = V('max(%s, 0)' % w.s, None, w.ty, (), E=w.E, B=w.B)
        k.store('out1', V('row', None, 'i32', ()), rv)
        att = '%s\n@require(BLOCK >= C)' % self.tune(dims, warps)
        k.holds = lambda config, case: int(config.split(',')[0].split('=')[1]) >= case['C']
        return k, cases, att, self.configs(dims, warps), 'grid(R)'

    def loop(self, name):
        r = self.r
        bm = r.choice([[16], [32], [8, 64], [24]])
        bk = r.choice([16, 32, 64, 80])
        warps = r.choice([[1], [2], [4]])
        dims = {'BM': bm}
        t = r.choice(['f32', 'f16', 'i32', 'i64', 'u16', 'bf16', 'f64', 'i8'])
        at = acc_type(t) if t in INTS else r.choice(['f32', 'f64', t])
        cases = []
        maxc = 0
        for _ in range(r.randint(2, 3)):
            R = r.choice([1, 16, 17, 40, 0])
            C = r.choice([1, bk - 1, bk, bk + 1, 3 * bk + 5, 100])
            if r.random() < 0.3:
                R, C = max(16, R // 16 * 16), max(16, C // 16 * 16)
            maxc = max(maxc, C)
            cases.append([('R', R), ('C', C), ('p0', r.choice([0, 1, 16, 2 * bk])),
                          ('p1', r.choice([0, 3, 4, 32])), ('len', max(R, 1) * C + 8),
                          ('len.out', max(R, 1) + 8), ('len.out2', max(R, 1) * bk + 8)])
        k = Kernel(self, name, r, dims, maxc)
        k.needmasks = {}
        k.buf('out', at, True)
        k.buf('out2', at, True)
        k.buf('x', t, False)
        for p in ('R', 'C', 'p0', 'p1'):
            k.param(p, 'i32')
        k.emit('let r = program_id(0) * BM + arange(0, BM);')
        k.emit('let kk0 = arange(0, %d);' % bk)
        k.emit('var acc = zeros([BM], %s);' % at)
        red = r.choice(['sum', 'max'])
        if red == 'max':
            k.lines[-1] = '    var acc = full([BM], %s, %s);' % (
                '-inf' if isf(at) else '(%d - 1)' % (TR[at][0] + 1), at)
        k.emit('var acc2 = zeros([BM, %d], %s);' % (bk, at))
        step = r.choice(['%d' % bk, '%d' % bk, '%d' % (bk // 2)])
        as_while = r.random() < 0.3   # the same loop as users write it without range()
        if as_while:
            k.emit('var k = 0;')
            k.emit('while k < C {')
        else:
            k.emit('for k in range(0, C, %s) {' % step)
        k.emit('    let kk = k + kk0;')
        k.emit('    let mk = (r[:, None] < R) & (kk[None, :] < C);')
        other = 0.0 if isf(t) else 0
        k.emit('    let t = load(x + r[:, None] * C + kk[None, :], mask=mk, other=%s);'
               % lit(other, t))
        # what the loop accumulates: an element-wise function of t
        k.S = ('BM', bk)
        k.dims[bk] = [bk]
        tv = V('t', None, t, ('BM', bk), B=4.0, lo=None, hi=None)
        k.leaves = [tv]
        k.idx = [V('kk[None, :]', None, 'i32', (1, bk), lo=0, hi=1 << 20, contig=True),
                 V('r[:, None]', None, 'i32', ('BM', 1), lo=0, hi=1 << 20, contig=True)]
        k.scalars = [V(x, None, 'i32', (), lo=0, hi=4096) for x in ('k', 'p0', 'C')]
        if r.random() < 0.4:   # a neighbour column of the block, as a 1-D stencil reads it
            dc = r.choice([-2, -1, 1, 3])
            ks = '(kk %s %d)' % ('+' if dc > 0 else '-', abs(dc))
            k.emit('    let mk2 = (r[:, None] < R) & (%s[None, :] >= 0) & (%s[None, :] < C);'
                   % (ks, ks))
            k.emit('    let t2 = load(x + r[:, None] * C + %s[None, :], mask=mk2, other=%s);'
                   % (ks, lit(other, t)))
            k.leaves.append(V('t2', None, t, ('BM', bk), B=4.0,
                              lo=-100 if t in INTS else None, hi=100 if t in INTS else None))
        if t in INTS:
            k.leaves.append(k.conv(k.narrow(tv), 'f32'))
            k.leaves[0] = V('t', None, t, ('BM', bk), lo=-100, hi=100)
            cases = [c + [('range', '-100,100')] for c in cases]
        lines_body = k.lines
        k.lines = []
        e = k.expr('f' if isf(at) else 'i', 2)
        e = k.conv(e, at) if (isf(e.ty) == isf(at)) else (
            k.conv(k.narrow(e), at) if not isf(e.ty) else (k.f2i(e, at) if e.E == 0
                                                             else k.conv(k.narrow(
                                                                 k.leaves[0] if not isf(t)
                                                                 else k.conv(k.idx[0], 'i32')),
                                                                 at)))
        inner = ['    ' + l for l in k.lines]
        k.lines = lines_body + inner
        nit = maxc
        if red == 'sum':
            k.emit('    acc += sum(where(mk, %s, %s), 1);' % (e.s, lit(0, at)))
        else:
            k.emit('    acc = maximum(acc, max(where(mk, %s, %s), 1));' % (
                e.s, '-inf' if isf(at) else '(%d - 1)' % (TR[at][0] + 1)))
        k.emit('    acc2 = acc2 + where(mk, %s, %s);' % (e.s, lit(0, at)))
        k.emit('    if p0 > k {')
        k.emit('        acc2 = acc2 %s;' % ('* 2.0' if isf(at) else '^ 3'))
        k.emit('    }')
        if as_while:
            k.emit('    k += %s;' % step)
        k.emit('}')
        k.emit('if p1 > 3 {')
        k.emit('    acc = acc + %s;' % lit(1, at))
        k.emit('} else {')
        k.emit('    acc = acc - %s;' % lit(2, at))
        k.emit('}')
        k.emit('store(out + r, acc, mask=r < R);')
        k.emit('store(out2 + r[:, None] * %d + kk0[None, :], acc2, mask=r[:, None] < R);' % bk)
        if isf(at):
            Bt = e.B
            E1 = nit * e.E + EPS[at] * nit * nit * Bt + EPS[at] * (nit * Bt + 2)
            # acc2 doubles at most once per iteration while p0 > k
            nk = -(-nit // (bk // 2))
            grow = 2.0 ** min(nk, 20)
            E2 = grow * (nk * e.E + EPS[at] * nk * nk * Bt) * 2
            if red == 'max':
                E1 = e.E
            k.bufs['out']['E'] = E1
            k.bufs['out2']['E'] = E2
            if grow * nk * Bt > LIM[at] or e.E * grow > 1e3:
                # too large a range for a tolerance: integers only
                return None
        k.S = ()
        return k, cases, self.tune(dims, warps), self.configs(dims, warps), \
            'grid(cdiv(R, BM))'

    def atomic(self, name):
        r = self.r
        blocks = r.choice([[32], [128], [64, 256]])
        warps = r.choice([[1], [4], [2, 8]])
        dims = {'BLOCK': blocks}
        k = Kernel(self, name, r, dims, max(blocks))
        k.needmasks = {}
        k.S = ('BLOCK',)
        t = r.choice(['i32', 'u32', 'i64', 'u64', 'f32'])
        S = r.choice([1, 3, 16, 32])
        k.buf('acc', t, True)
        k.buf('mx', t, True)
        k.buf('old', t, True)
        k.buf('u', t, True)
        k.buf('cnt', 'i32', True)
        k.buf('x', t, False)
        k.param('n', 'i32')
        k.param('p0', 'i32')
        cases = []
        maxn = 0
        for n in self.sizes(blocks, r.randint(2, 3)):
            maxn = max(maxn, n)
            rg = '-1000,1000' if t[0] != 'u' else '0,100000'
            cases.append([('n', n), ('p0', r.choice([0, 3, 16, n // 2])), ('len', n + 8),
                          ('len.old', n + max(blocks)),
                          ('len.acc', S), ('len.mx', S), ('len.cnt', 1), ('init.acc', 'zero'),
                          ('init.mx', 'zero'), ('init.cnt', 'zero'), ('init.u', 'rand'),
                          ('range', rg)])
        k.emit('let offs = program_id(0) * BLOCK + arange(0, BLOCK);')
        k.emit('let m = offs < n;')
        k.idx = [V('offs', None, 'i32', ('BLOCK',), lo=0, hi=1 << 20, contig=True)]
        k.scalars = [V('n', None, 'i32', (), lo=0, hi=1 << 20),
                     V('p0', None, 'i32', (), lo=0, hi=1 << 20)]
        k.emit('let v = load(x + offs, mask=m, other=%s);' % lit(0, t))
        if t == 'f32':
            vv = V('v', None, t, ('BLOCK',), B=1000.0)
        else:
            vv = V('v', None, t, ('BLOCK',), lo=-1000 if t[0] == 'i' else 0,
                   hi=1000 if t[0] == 'i' else 100000)
        k.leaves = [vv]
        mk = k.mask(1)
        k.emit('atomic_add(acc + offs %% %d, v, mask=m & %s);' % (S, mk.s))
        if t == 'f32':
            k.bufs['acc']['E'] = EPS['f32'] * maxn * maxn * 1000.0 / S + 1e-6
        mk2 = k.mask(1)
        f = r.choice(['atomic_max', 'atomic_min'])
        k.emit('%s(mx + offs %% %d, v, mask=m & %s);' % (f, S, mk2.s))
        k.emit('let o1 = atomic_xchg(u + offs, v, mask=m);')
        # atomic_cas has no mask: 'old' is long enough for every lane of the
        # grid, and lanes past n compare and swap values known on both sides
        k.emit('let o2 = atomic_cas(old + offs, v, where(m, o1, %s));' % lit(0, t))
        k.emit('store(old + offs, o1 %s o2, mask=m);' % r.choice(['+', '-']))
        k.emit('atomic_add(cnt, 1);')
        if t == 'f32':
            k.bufs['old']['E'] = 0
        return k, cases, self.tune(dims, warps), self.configs(dims, warps), \
            'grid(cdiv(n, BLOCK))'

    def dot(self, name):
        r = self.r
        bm = r.choice([[16], [32], [16, 64], [48]])
        bn = r.choice([[16], [32], [64], [16, 32], [24, 80]])
        bk = r.choice([[16], [32], [16, 64], [40], [24, 48]])
        warps = r.choice([[1], [2], [4], [1, 4]])
        t, prec = r.choice([('f16', None), ('bf16', None), ('f32', None), ('f32', 'ieee'),
                            ('i8', None), ('f8e4m3', None), ('f8e5m2', None)])
        f8 = t.startswith('f8')
        # f8: B of the other f8 kind at times; B stored [N, K] and read
        # through trans() at times (both operands along K: wgmma .e4m3 /
        # .e5m2 where the tile and warps allow, else widened to f16)
        tb = ('f8e5m2' if t == 'f8e4m3' else 'f8e4m3') if f8 and r.random() < 0.4 else t
        bt = f8 and r.random() < 0.7
        if f8 and r.random() < 0.6:
            bm, warps, bk = r.choice([[64], [16, 64], [128]]), [4], r.choice([[32], [64], [32, 128]])
        # tf32 with B along N on tiles whose N is at most M, 4 warps: on
        # sm_90a the product computed transposed (plan/swap_dot.c)
        if t == 'f32' and not prec and r.random() < 0.5:
            bm, bn, warps, bk = r.choice([[64], [128], [64, 128]]), [64], [4], r.choice([[32], [16, 32]])
        # tf32 with A stored [K, M] at times (read along M: on sm_90a A
        # goes into registers and B, along N, is staged; only threads
        # read the rings, lower/pipeline.c threads_read)
        amn = t == 'f32' and not prec and r.random() < 0.35
        if self.wide_dots:   # tiles wgmma takes with 128-byte rows
            bm, bn = r.choice([[64], [128], [64, 128]]), r.choice([[64], [128], [64, 128]])
            bk, warps = [64], r.choice([[4], [4, 8]])
            t, prec, bt, amn, f8 = r.choice(['f16', 'bf16']), None, False, False, False
            tb = t
        big = self.wide_dots and self.big_dots and r.random() < 0.5
        if big:   # 4 x 48 KiB of rings: a persistent epilogue converts in pieces
            bm, bn, warps = [128], [256], [8]
        dims = {'BM': bm, 'BN': bn, 'BK': bk}
        at = 'i32' if t == 'i8' else 'f32'
        k = Kernel(self, name, r, dims, 64)
        k.needmasks = {}
        ot = r.choice([at, at, 'f16'] if at == 'f32' else [at])
        k.buf('c', ot, True)
        k.buf('a', t, False)
        k.buf('b', tb, False)
        k.buf('bias', at, False)
        for p in ('M', 'N', 'K'):
            k.param(p, 'i32')
        cases = []
        maxk = 0
        for _ in range(r.randint(2, 3)):
            # --aligned-dots: sizes (and so row strides) multiples of 8,
            # which the specialized entries (TMA maps among them, tilec
            # --tma) take; lists as long as the others, so that the
            # program itself is the same
            if self.wide_dots:   # odd lengths: rows of any alignment
                M = r.choice([64, 65, 100, 130, 1, 17, 200])
                N = r.choice([64, 71, 127, 130, 8, 1, 193])
                K = r.choice([64, 65, 87, 129, 7, 200, 1])
            elif self.aligned_dots:
                M = r.choice([16, 24, 32, 64, 8, 128, 48])
                N = r.choice([16, 32, 64, 40, 8, 128])
                K = r.choice([16, 32, 48, 8, 64, 96, 128])
            else:
                M = r.choice([16, 17, 33, 64, 5, 1, 50])
                N = r.choice([16, 31, 64, 40, 8, 1])
                K = r.choice([16, 32, 48, 7, 64, 100, 1])
            maxk = max(maxk, K)
            c = [('M', M), ('N', N), ('K', K), ('len.a', M * K + 8), ('len.b', K * N + 8),
                 ('len.c', M * N + 8), ('len.bias', max(M, N) + 8)]
            c.append(('range', '-1,1' if t != 'i8' else '-100,100'))
            if f8:   # f8 codes in [-2, 2), multiples of 0.5: sums exact on FP8 tensor cores
                c += [('range.a', '-2,2'), ('range.b', '-2,2'), ('step.a', '0.5'),
                      ('step.b', '0.5')]
            cases.append(c)
        # persistent at times: P programs walk the tiles in one loop over
        # (tile, k) and store each tile in an `if` at its last step (the
        # wgmma group stays in flight through it: plan/lowering.c's drain;
        # the walk divides by invariant divisors: plan/divisor.c)
        pers = r.random() < 0.3
        if pers:
            k.param('P', 'i32')
            for c in cases:   # first: the i32 cases below replace the last pair
                c.insert(0, ('P', r.choice([1, 2, 3, 5, 8])))
            k.emit('let tn = cdiv(N, BN);')
            k.emit('let kt = cdiv(K, BK);')
            k.emit('let mine = cdiv(cdiv(M, BM) * tn - program_id(0), P);')
            k.emit('let rk = arange(0, BK);')
            k.emit('var acc = zeros([BM, BN], %s);' % at)
            k.emit('for it in range(0, mine * kt) {')
            k.emit('    let t = program_id(0) + (it / kt) * P;')
            k.emit('    let k = (it % kt) * BK;')
            k.emit('    let rm = t / tn * BM + arange(0, BM);')
            k.emit('    let rn = t % tn * BN + arange(0, BN);')
        else:
            k.emit('let rm = program_id(0) * BM + arange(0, BM);')
            k.emit('let rn = program_id(1) * BN + arange(0, BN);')
            k.emit('let rk = arange(0, BK);')
            k.emit('var acc = zeros([BM, BN], %s);' % at)
        # the operands' addresses at k (k0: at k = 0) and each one's step
        # per iteration, for the stepped form
        aoff = ('(k + rk)[None, :] * M + rm[:, None]', 'rk[None, :] * M + rm[:, None]', 'BK * M') \
            if amn else ('rm[:, None] * K + (k + rk)[None, :]', 'rm[:, None] * K + rk[None, :]', 'BK')
        boff = ('rn[:, None] * K + (k + rk)[None, :]', 'rn[:, None] * K + rk[None, :]', 'BK') \
            if bt else ('(k + rk)[:, None] * N + rn[None, :]', 'rk[:, None] * N + rn[None, :]',
                        'BK * N')
        stepped = not pers and self.stepped and r.random() < 0.7
        # --strided-dots: every stride a parameter (Triton's form; the
        # values the buffers' layouts give, so the unit-stride variants
        # run: u1..u4)
        strided = not pers and not stepped and self.strided and r.random() < 0.7
        if strided:
            for p in ('sam', 'sak', 'sbk', 'sbn'):
                k.param(p, 'i32')
            for c in cases:   # first: the i32 cases below replace the last pair
                M, N, K = (dict(c)[x] for x in ('M', 'N', 'K'))
                c[0:0] = [('sam', 1 if amn else K), ('sak', M if amn else 1),
                          ('sbk', 1 if bt else N), ('sbn', K if bt else 1)]
            aoff = ('rm[:, None] * sam + (k + rk)[None, :] * sak',) + aoff[1:]
            boff = ('rn[:, None] * sbn + (k + rk)[None, :] * sbk' if bt else
                    '(k + rk)[:, None] * sbk + rn[None, :] * sbn',) + boff[1:]
        # the K masks: on k + rk, or (stepped, half the time) on rk
        # against the steps left, K - k
        krow, kcol = '((k + rk)[None, :] < K)', '((k + rk)[:, None] < K)'
        if stepped:
            k.emit('var pa = a + %s;' % aoff[1])
            k.emit('var pb = b + %s;' % boff[1])
            aptr, bptr = 'pa', 'pb'
            if r.random() < 0.5:
                krow, kcol = '(rk[None, :] < K - k)', '(rk[:, None] < K - k)'
        else:
            aptr, bptr = 'a + ' + aoff[0], 'b + ' + boff[0]
        if not pers:
            k.emit('for k in range(0, K, BK) {')
        k.emit('    let at = load(%s, mask=(rm[:, None] < M) & %s, other=%s);'
               % (aptr, krow, lit(0, t)))
        if bt:
            k.emit('    let bt = load(%s, mask=(rn[:, None] < N) & %s, other=0);'
                   % (bptr, krow))
        else:
            k.emit('    let bt = load(%s, mask=%s & (rn[None, :] < N), other=%s);'
                   % (bptr, kcol, lit(0, t)))
        if stepped:
            k.emit('    pa += %s;' % aoff[2])
            k.emit('    pb += %s;' % boff[2])
        padded_k = any(b & (b - 1) for b in bk)   # sema: such a K takes loaded operands
        if r.random() < 0.3 and t != 'i8' and not f8 and not padded_k:
            k.emit('    let at2 = where(at > %s, at, at * %s);' % (lit(0.0, t), lit(0.5, t)))
            aname = 'at2'
        else:
            aname = 'at'
        k.emit('    acc = dot(%s, %s, acc=acc%s);' % (aname, 'trans(bt)' if bt else 'bt',
                                                     ', precision="ieee"' if prec else ''))
        if pers:
            k.emit('    if it % kt == kt - 1 {')
        else:
            k.emit('}')
        k.S = ('BM', 'BN')
        Kmax = max(maxk, 1)
        accv = V('acc', None, at, ('BM', 'BN'),
                 E=(EPS['f32'] * Kmax * Kmax * 1.0 * 2) if at == 'f32' else 0.0,
                 B=float(Kmax) if at == 'f32' else 0.0,
                 lo=-100 * 100 * Kmax if at == 'i32' else None,
                 hi=100 * 100 * Kmax if at == 'i32' else None)
        k.emit('let bv = load(bias + rn, mask=rn < N, other=%s);' % lit(0, at))
        bv = V('bv[None, :]', None, at, (1, 'BN'), B=4.0, lo=-1000, hi=1000)
        if at == 'i32':
            cases = [c[:-1] + [('range', '-100,100')] for c in cases]
        k.leaves = [accv, bv]
        k.idx = [V('rm[:, None]', None, 'i32', ('BM', 1), lo=0, hi=4096, contig=True),
                 V('rn[None, :]', None, 'i32', (1, 'BN'), lo=0, hi=4096, contig=True)]
        k.scalars = [V(x, None, 'i32', (), lo=0, hi=4096) for x in ('M', 'N', 'K')]
        e = k.expr('f' if at == 'f32' else 'i', r.randint(1, 2))
        if isf(e.ty) != isf(ot):
            e = accv
        k.store('c', V('(rm[:, None] * N + rn[None, :])', None, 'i32', ('BM', 'BN')), e,
                V('((rm[:, None] < M) & (rn[None, :] < N))', None, 'bool', ('BM', 'BN')))
        att, configs = self.tune(dims, warps), self.configs(dims, warps)
        if big:
            att, configs = att[:-1] + ', stages = [4])', [c + ',stages=4' for c in configs]
        if pers:
            k.emit('        acc = zeros([BM, BN], %s);' % at)
            k.emit('    }')
            k.emit('}')
            return k, cases, att, configs, 'grid(P)'
        return k, cases, att, configs, 'grid(cdiv(M, BM), cdiv(N, BN))'

    def chain(self, name):
        """Two products chained in a loop over key blocks, attention-like:
        t = dot(A, K_blk^T or K_blk, acc=zeros or a loaded bias), then
        acc = dot(f(t) as T, V_blk, acc=acc). A is a Q tile
        loaded before the loop (registers) or a block of `a` loaded in it
        (a ring read through descriptors); f masks past S, halves, clamps
        at 0. Inputs are multiples of 0.5 in [-2, 2) and sums stay within
        f32's exact range, so both sides compute every sum exactly and the
        conversions to T round alike: atol 0 but for the f32 -> T rounding
        (deterministic). tilec --early-products issues the first product
        one iteration ahead on sm_90a where its rings are TMA's. 3 in 10
        wrap it in a loop over 2 or 3 heads, the Q tile loaded there."""
        r = self.r
        t = r.choice(['f16', 'bf16'])
        bm = r.choice([64, 128])
        warps = r.choice([4, 8]) if bm == 128 else 4
        bn = r.choice([16, 32, 64])
        d = r.choice([16, 32, 64])
        stages = r.choice([[3], [4], [2, 3]])
        a_ring = r.random() < 0.4
        k_nk = r.random() < 0.6          # k stored [S, D] (attention), else [D, S]
        bias = r.random() < 0.3
        dims = {'BM': [bm], 'BN': [bn]}
        k = Kernel(self, name, r, dims, 64)
        k.needmasks = {}
        k.buf('o', 'f32', True)
        k.buf('a', t, False)
        k.buf('kk', t, False)
        k.buf('v', t, False)
        if bias:
            k.buf('bias', 'f32', False)
        for x in ('M', 'S', 'lo'):
            k.param(x, 'i32')
        D = d
        # 3 in 10: an outer loop over `heads` heads, each with its own
        # blocks of a, kk, v and o (v shared where it is a's [D, D]),
        # the Q tile loaded in the outer loop (a load pipelined there,
        # read by the inner loop's product)
        heads = r.choice([2, 3]) if r.random() < 0.3 else 1
        body = []
        emit = body.append
        ho = 'hq + ' if heads > 1 else ''      # a and o: head h's [M, D] or [M, S]
        hk = 'hk + ' if heads > 1 else ''      # kk and v: head h's [S, D]
        if heads > 1:
            emit('let hq = h * M * %s;' % ('S' if a_ring else D))
            emit('let hk = h * S * %d;' % D)
            emit('let ho = h * M * %d;' % D)
        if not a_ring:   # a [M, D]
            emit('let qt = load(a + %srm[:, None] * %d + rd[None, :], mask=rm[:, None] < M, '
                 'other=0);' % (ho, D))
        emit('var acc = zeros([BM, %d], f32);' % D)
        emit('for n in range(lo, S, BN) {')
        emit('    let rn = n + arange(0, BN);')
        if a_ring:       # a [M, S]: the block of columns rn, K of the first product = BN
            emit('    let qt = load(a + %srm[:, None] * S + rn[None, :], '
                 'mask=(rm[:, None] < M) & (rn[None, :] < S), other=0);' % ho)
            emit('    let kb = load(kk + %srn[:, None] * %d + rd[None, :], mask=rn[:, None] < S, '
                 'other=0);' % (hk, D))
            first = 'dot(qt, kb%s)'
            tshape = ('BM', D)
        elif k_nk:       # kk [S, D] read as its transpose [D, BN]
            emit('    let kb = load(kk + %srn[None, :] * %d + rd[:, None], mask=rn[None, :] < S, '
                 'other=0);' % (hk, D))
            first = 'dot(qt, kb%s)'
            tshape = ('BM', 'BN')
        else:            # kk [D, S]
            emit('    let kb = load(kk + %srd[:, None] * S + rn[None, :], mask=rn[None, :] < S, '
                 'other=0);' % hk)
            first = 'dot(qt, kb%s)'
            tshape = ('BM', 'BN')
        if bias and tshape == ('BM', 'BN'):
            emit('    let t = %s;' % (first % ', acc=b0'))
        else:
            emit('    let t = %s;' % (first % ''))
        f = r.choice(['t', 't * 0.5', 'maximum(t, 0.0)'])
        if tshape == ('BM', 'BN') and r.random() < 0.6:
            f = 'where(rn[None, :] < S, %s, 0.0)' % f
        if tshape == ('BM', 'BN'):
            # v [S, D]: the second product's B along the key blocks
            emit('    let vb = load(v + %srn[:, None] * %d + rd[None, :], mask=rn[:, None] < S, '
                 'other=0);' % (hk, D))
            second = 'dot((%s) as %s, vb, acc=%s)'
        else:
            # t is [BM, D] (a ring's A): times v [D, D] (loop invariant, loaded each time)
            emit('    let vb = load(v + rd[:, None] * %d + rd[None, :]);' % D)
            second = 'dot((%s) as %s, vb, acc=%s)'
        emit('    acc = %s;' % (second % (f, t, 'acc')))
        emit('}')
        emit('store(o + %srm[:, None] * %d + rd[None, :], acc, mask=rm[:, None] < M);'
             % ('ho + ' if heads > 1 else '', D))
        k.emit('let rm = program_id(0) * BM + arange(0, BM);')
        k.emit('let rd = arange(0, %d);' % D)
        if bias:
            k.emit('let b0 = load(bias + rm[:, None] * BN + arange(0, BN)[None, :], '
                   'mask=rm[:, None] < M, other=0);')
        if heads > 1:
            k.emit('for h in range(0, %d) {' % heads)
        for line in body:
            k.emit(('    ' if heads > 1 else '') + line)
        if heads > 1:
            k.emit('}')
        cases = []
        for _ in range(r.randint(2, 3)):
            M = r.choice([64, 128, 40, 8, 200] if self.aligned_dots else [64, 50, 1, 130, 17])
            S = r.choice([64, 128, 32, 16, 200, 8] if self.aligned_dots else [64, 37, 100, 1, 16])
            lo = r.choice([0, 0, 0, bn, S, max(S - 1, 0)])
            ncols = S if a_ring else D
            c = [('M', M), ('S', S), ('lo', lo), ('len.o', heads * M * D + 8),
                 ('len.a', heads * M * ncols + 8), ('len.kk', heads * S * D + 8),
                 ('len.v', (D * D if a_ring else heads * S * D) + 8)]
            if bias:
                c.append(('len.bias', M * bn + 8))
            c += [('range', '-2,2'), ('step', '0.5')]
            cases.append(c)
        k.S = ('BM', 'BN')
        k.nospecial = True   # NaN and inf would make the exact sums moot
        att = '@tune(BM = [%d], BN = [%d], warps = [%d], stages = [%s])' % (
            bm, bn, warps, ', '.join(map(str, stages)))
        configs = ['BM=%d,BN=%d,warps=%d,stages=%d' % (bm, bn, warps, x) for x in stages]
        return k, cases, att, configs, 'grid(cdiv(M, BM))'

    # ------------------------------------------------------------ files
    def kernel_text(self, k, att, grid):
        cps = ', '.join('%s: i32' % d for d in k.dims if isinstance(d, str))
        ps = ', '.join('%s: %s' % p for p in k.params)
        head = '%s\nkernel %s<%s>(%s)\n    %s\n{' % (att, k.name, cps, ps, grid)
        return head + '\n' + '\n'.join(k.lines) + '\n}\n'

    def file(self, nk, templates):
        out = ['// Generated by tests/fuzz/tilegen.py --seed %d%s%s%s: do not edit (regenerate).'
               % (self.seed, ' --numpy' if self.numpy else '',
                  (' --wide-dots' if self.wide_dots else '') +
                  (' --big-dots' if self.big_dots else '') +
                  (' --stepped-pointers' if self.stepped else '') +
                  (' --strided-dots' if self.strided else ''),
                  ' --templates ' + ','.join(templates) if templates not in (ALL, WEIGHTS)
                  else ''), '']
        npk = {}
        made = 0
        attempts = 0
        while made < nk and attempts < 50:
            attempts += 1
            tpl = self.r.choice(templates)
            name = '%s_%d' % (tpl, made)
            self.special_ok = self.r.random() < 0.3
            res = getattr(self, tpl)(name)
            if res is None:
                continue
            k, cases, att, configs, grid = res
            if self.numpy and any(
                    l.strip().startswith('let') and 'None' in l and False for l in k.lines):
                continue
            if self.numpy and any(x is None for x in k.np):
                continue
            exact = all(b['E'] == 0 for b in k.bufs.values())
            if exact and self.special_ok and not k.argm and not self.numpy and \
                    not getattr(k, 'nospecial', False):
                cases = [c + [('special', '1')] if self.r.random() < 0.5 else c for c in cases]
            out += self.case_lines(k, cases, configs)
            out.append(self.kernel_text(k, att, grid))
            npk[k.name] = (k.np, [(n, t) for n, t in k.params],
                           {d: v[0] for d, v in k.dims.items() if isinstance(d, str)})
            made += 1
        return '\n'.join(out), npk


ALL = ['ew1d', 'tile2d', 'row', 'loop', 'atomic', 'dot']
WEIGHTS = ['ew1d', 'ew1d', 'ew1d', 'tile2d', 'tile2d', 'tile2d', 'row', 'loop', 'loop',
           'atomic', 'dot']


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('-o', '--output')
    ap.add_argument('--kernels', type=int, default=3)
    ap.add_argument('--templates', default=None)
    ap.add_argument('--numpy', metavar='FILE.py')
    ap.add_argument('--no-contig-cmp', action='store_true')
    ap.add_argument('--aligned-dots', action='store_true',
                    help='dot cases with sizes that are multiples of 8 (the same programs)')
    ap.add_argument('--wide-dots', action='store_true',
                    help='dot tiles of 64 or 128 by 64 or 128, BK 64, f16/bf16, 4 or 8 warps '
                         '(wgmma with 128-byte rows), sizes odd')
    ap.add_argument('--big-dots', action='store_true',
                    help='with --wide-dots: half of the products 128 x 256 over 8 warps at 4 '
                         'stages')
    ap.add_argument('--stepped-pointers', action='store_true',
                    help='products load at times through pointer tiles the loop steps '
                         '(pa += BK)')
    ap.add_argument('--strided-dots', action='store_true',
                    help='products take every stride as a parameter at times (sam, sak, '
                         'sbk, sbn: the unit-stride variants)')
    a = ap.parse_args()
    g = Gen(a.seed, numpy=bool(a.numpy), no_contig_cmp=a.no_contig_cmp,
            aligned_dots=a.aligned_dots, wide_dots=a.wide_dots, stepped=a.stepped_pointers,
            strided=a.strided_dots, big_dots=a.big_dots)
    if a.templates:
        tpls = a.templates.split(',')
    elif a.numpy:
        tpls = ['ew1d', 'tile2d']
    else:
        tpls = WEIGHTS
    text, npk = g.file(a.kernels, tpls)
    if a.output:
        with open(a.output, 'w') as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if a.numpy:
        with open(a.numpy, 'w') as f:
            f.write('# numpy model of %s (tilegen.py --seed %d --numpy)\n'
                    % (a.output or '-', a.seed))
            f.write('import numpy as np\nfrom npsem import *\n\n')
            f.write('KERNELS = {}\n\n')
            for name, (lines, params, dims) in npk.items():
                args = ', '.join(p for p, _ in params)
                f.write('def %s(%s):\n' % (name, args))
                for d, v in dims.items():
                    f.write('    %s = %d\n' % (d, v))
                for l in lines:
                    f.write('    %s\n' % l)
                f.write('    return None\n\n')
                f.write('KERNELS[%r] = (%s, %r)\n\n' % (name, name, params))


if __name__ == '__main__':
    main()
