"""user_stencil — Triton's side of the stencil workloads of step `user`
(examples/stencil.tile's heat2 and jacobi, written the same way: helpers
called at shifted coordinates, masked neighbour loads). Imported by
user_bench.define_triton, once torch and triton are importable; Triton
needs its jit functions (and the helpers they call) at a module's top level.
"""
import triton
import triton.language as tl


@triton.jit
def _at(u, i, j, rows, cols, st):
    inside = (i >= 0) & (i < rows) & (j >= 0) & (j < cols)
    return tl.load(u + i * st + j, mask=inside, other=0.0)


@triton.jit
def _heat(u, i, j, rows, cols, st, a):
    c = _at(u, i, j, rows, cols, st)
    lap = (_at(u, i - 1, j, rows, cols, st) + _at(u, i + 1, j, rows, cols, st)
           + _at(u, i, j - 1, rows, cols, st) + _at(u, i, j + 1, rows, cols, st) - 4.0 * c)
    inside = (i >= 0) & (i < rows) & (j >= 0) & (j < cols)
    return tl.where(inside, c + a * lap, 0.0)


@triton.jit
def heat2(out, u, rows, cols, st, a, BM: tl.constexpr, BN: tl.constexpr):
    i = (tl.program_id(0) * BM + tl.arange(0, BM))[:, None]
    j = (tl.program_id(1) * BN + tl.arange(0, BN))[None, :]
    c = _heat(u, i, j, rows, cols, st, a)
    lap = (_heat(u, i - 1, j, rows, cols, st, a) + _heat(u, i + 1, j, rows, cols, st, a)
           + _heat(u, i, j - 1, rows, cols, st, a) + _heat(u, i, j + 1, rows, cols, st, a)
           - 4.0 * c)
    tl.store(out + i * st + j, c + a * lap, mask=(i < rows) & (j < cols))


@triton.jit
def jacobi(out, u, rows, cols, st, a, BM: tl.constexpr, BN: tl.constexpr):
    i = (tl.program_id(0) * BM + tl.arange(0, BM))[:, None]
    j = (tl.program_id(1) * BN + tl.arange(0, BN))[None, :]
    inside = (i < rows) & (j < cols)
    interior = (i > 0) & (i < rows - 1) & (j > 0) & (j < cols - 1)
    p = u + i * st + j
    c = tl.load(p, mask=inside, other=0.0)
    lap = (tl.load(p - st, mask=interior, other=0.0) + tl.load(p + st, mask=interior, other=0.0)
           + tl.load(p - 1, mask=interior, other=0.0) + tl.load(p + 1, mask=interior, other=0.0)
           - 4.0 * c)
    tl.store(out + i * st + j, tl.where(interior, c + a * lap, c), mask=inside)
