"""npsem.py — Tile's element-wise, reduction and memory semantics in numpy,
an independent model of the reference interpreter for the programs
tests/fuzz/tilegen.py generates with --numpy.

tilegen.py writes, beside each such .tile, a Python program whose
statements mirror the kernel's statement for statement, calling the
functions below (CAST for `as`, BIN for a binary operator, LOAD/STORE for
memory, SUM/CUMSUM/... for reductions). tests/fuzz/npcheck.py runs that
program on the inputs it gives the interpreter and compares the buffers.

Types are Tile's names ('i32', 'f16', 'bf16', 'bool', ...). bf16 has no
numpy type: its values are float32 arrays rounded to bf16 after every
operation (rnd_bf16, round to nearest even from float64, so no double
rounding). f16 uses numpy's float16, whose arithmetic is computed in
float32 and rounded once (exact for + - * /, as 24 >= 2*11+2 bits).
Integer arithmetic wraps as numpy's fixed-width arrays do; / and %
truncate toward zero as in C.
"""
import numpy as np

NP = {'bool': np.bool_, 'i8': np.int8, 'i16': np.int16, 'i32': np.int32,
      'i64': np.int64, 'u8': np.uint8, 'u16': np.uint16, 'u32': np.uint32,
      'u64': np.uint64, 'f16': np.float16, 'bf16': np.float32,
      'f32': np.float32, 'f64': np.float64}
FLOATS = ('f16', 'bf16', 'f32', 'f64')


def rnd_bf16(a):
    """float values -> the nearest bf16 (ties to even), as float32."""
    a = np.asarray(a, dtype=np.float64)
    with np.errstate(all='ignore'):
        _, e = np.frexp(a)
        e = np.maximum(e, -125)               # bf16 subnormals: quantum 2^-133
        q = np.ldexp(1.0, e - 8)
        r = np.rint(a / q) * q
        r = np.where(np.abs(r) >= 2.0 ** 128, np.copysign(np.inf, a), r)
        r = np.where(np.isfinite(a), r, a)
    return r.astype(np.float32)


def arr(a, t):
    """a as an array of Tile type t (no conversion of values: a is t)."""
    return np.asarray(a, dtype=NP[t])


def CAST(a, src, dst):
    """`a as dst` for a of Tile type src."""
    a = np.asarray(a)
    with np.errstate(all='ignore'):
        if dst == 'bool':
            return a != 0
        if dst == 'bf16':
            if src in FLOATS or src == 'bool':
                return rnd_bf16(a.astype(np.float64))
            return rnd_bf16(a.astype(np.float64))   # |ints| < 2^53 here
        if dst in FLOATS:
            if src == 'bool':
                return a.astype(NP[dst])
            return a.astype(NP[dst])
        if src in FLOATS:
            return np.trunc(a.astype(np.float64)).astype(NP[dst])
        return a.astype(NP[dst])


def fin(r, t):
    """The result of an operation computed in a wider type, in type t."""
    if t == 'bf16':
        return rnd_bf16(r)
    return np.asarray(r).astype(NP[t])


def BIN(op, a, b, t):
    """a op b with both operands already of type t."""
    a, b = arr(a, t), arr(b, t)
    with np.errstate(all='ignore'):
        if t == 'bf16':
            a, b = a.astype(np.float64), b.astype(np.float64)
        if op == '+':
            r = a + b
        elif op == '-':
            r = a - b
        elif op == '*':
            r = a * b
        elif op == '/':
            if t in FLOATS:
                r = a / b
            else:
                # C division truncates: numpy's floors, corrected where the
                # quotient is negative and inexact (no overflow: b >= 1 here)
                q = np.floor_divide(a, b)
                r = np.where((np.fmod(a, b) != 0) & ((a < 0) != (b < 0)), q + 1, q)
        elif op == '%':
            if t in FLOATS:
                r = np.fmod(a, b)
            else:
                r = np.fmod(a, b)               # C remainder: sign of a
        elif op == '&':
            r = a & b
        elif op == '|':
            r = a | b
        elif op == '^':
            r = a ^ b
        elif op == '<<':
            r = np.left_shift(a, b)
        elif op == '>>':
            r = np.right_shift(a, b)
        else:
            raise ValueError(op)
    return fin(r, t)


def CMP(op, a, b, t):
    a, b = arr(a, t), arr(b, t)
    return {'<': np.less, '<=': np.less_equal, '>': np.greater,
            '>=': np.greater_equal, '==': np.equal, '!=': np.not_equal}[op](a, b)


def NEG(a, t):
    with np.errstate(all='ignore'):
        return fin(-arr(a, t), t)


def NOT(a):
    return np.logical_not(a)


def INV(a, t):
    return np.invert(arr(a, t))


def ABS(a, t):
    with np.errstate(all='ignore'):
        return fin(np.abs(arr(a, t)), t)


def MAXI(a, b, t):
    a, b = arr(a, t), arr(b, t)
    return fin(np.fmax(a, b), t) if t in FLOATS else np.maximum(a, b)


def MINI(a, b, t):
    a, b = arr(a, t), arr(b, t)
    return fin(np.fmin(a, b), t) if t in FLOATS else np.minimum(a, b)


def CLAMP(a, lo, hi, t):
    return MINI(MAXI(a, lo, t), hi, t)


def WHERE(c, a, b, t):
    return fin(np.where(c, arr(a, t), arr(b, t)), t)


def FLOOR(a, t):
    return fin(np.floor(arr(a, t)), t)


def CEIL(a, t):
    return fin(np.ceil(arr(a, t)), t)


def EXP(a, t):
    with np.errstate(all='ignore'):
        return fin(np.exp(arr(a, t).astype(np.float64)), t)


def FMA(a, b, c, t):
    # exact product and sum in float64 for f16/bf16/f32 operands, one rounding
    with np.errstate(all='ignore'):
        r = arr(a, t).astype(np.float64) * arr(b, t) + arr(c, t)
    return fin(r, t)


def acc_type(t):
    return {'i8': 'i32', 'i16': 'i32', 'u8': 'u32', 'u16': 'u32',
            'bool': 'i32'}.get(t, t)


def SUM(a, axis, keep, t):
    at = acc_type(t)
    with np.errstate(all='ignore'):
        if at in FLOATS:
            r = np.sum(arr(a, t).astype(np.float64), axis=axis, keepdims=keep)
        else:
            r = np.sum(arr(a, t).astype(NP[at]), axis=axis, keepdims=keep, dtype=NP[at])
    return fin(r, at)


def CUMSUM(a, axis, t):
    at = acc_type(t)
    with np.errstate(all='ignore'):
        if at in FLOATS:
            r = np.cumsum(arr(a, t).astype(np.float64), axis=axis)
        else:
            r = np.cumsum(arr(a, t).astype(NP[at]), axis=axis, dtype=NP[at])
    return fin(r, at)


def _running(a, axis, t, fold, plain):
    """cummax/cummin: floats by fold (NaN skipped, as RMAX/RMIN), integers
    by plain."""
    a = arr(a, t)
    if t in FLOATS:
        with np.errstate(all='ignore'):
            return fin(fold.accumulate(a, axis=axis), t)
    return plain.accumulate(a, axis=axis)


def CUMMAX(a, axis, t):
    return _running(a, axis, t, np.fmax, np.maximum)


def CUMMIN(a, axis, t):
    return _running(a, axis, t, np.fmin, np.minimum)


def _extreme(a, axis, keep, t, fold, plain):
    """max/min along axis: floats by fold (IEEE maxNum/minNum: NaN skipped),
    integers by plain."""
    a = arr(a, t)
    if t in FLOATS:
        with np.errstate(all='ignore'):
            r = fold.reduce(a, axis=axis, keepdims=keep)
        return fin(r, t)
    return plain(a, axis=axis, keepdims=keep)


def RMAX(a, axis, keep, t):
    return _extreme(a, axis, keep, t, np.fmax, np.max)


def RMIN(a, axis, keep, t):
    return _extreme(a, axis, keep, t, np.fmin, np.min)


def _arg(a, axis, keep, t, fold, plain):
    """argmax/argmin: the first index of the extreme; floats skip NaN as
    RMAX/RMIN do (numpy's argmax would pick the first NaN), 0 when all
    are NaN."""
    a = arr(a, t)
    if t not in FLOATS:
        return plain(a, axis=axis, keepdims=keep).astype(np.int32)
    with np.errstate(all='ignore'):
        best = fold.reduce(a, axis=axis, keepdims=True)
    hit = np.logical_and(a == best, np.logical_not(np.isnan(a)))
    return np.argmax(hit, axis=axis, keepdims=keep).astype(np.int32)


def ARGMAX(a, axis, keep, t):
    return _arg(a, axis, keep, t, np.fmax, np.argmax)


def ARGMIN(a, axis, keep, t):
    return _arg(a, axis, keep, t, np.fmin, np.argmin)


def LOAD(buf, idx, mask, other, t):
    """load(buf + idx, mask=, other=): mask None is all true."""
    idx = np.asarray(idx, dtype=np.int64)
    if mask is None:
        return arr(buf[idx], t)
    mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), idx.shape))
    idx = np.broadcast_to(idx, mask.shape)
    safe = np.where(mask, idx, 0)
    return np.where(mask, arr(buf[safe], t), arr(other, t)).astype(NP[t])


def STORE(buf, idx, val, mask, t):
    idx = np.asarray(idx, dtype=np.int64)
    shape = np.broadcast_shapes(idx.shape, np.shape(val),
                                np.shape(mask) if mask is not None else ())
    idx = np.broadcast_to(idx, shape)
    val = np.broadcast_to(arr(val, t), shape)
    if mask is None:
        buf[idx] = val
    else:
        m = np.broadcast_to(mask, shape)
        buf[idx[m]] = val[m]
