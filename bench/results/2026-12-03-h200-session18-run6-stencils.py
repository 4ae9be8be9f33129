# Stencils (examples/stencil.tile: heat1, heat2, jacobi) at one tile shape,
# Tile before (session 17's compiler) and now, beside the same kernels in Triton;
# outputs checked against float64 torch; CUDA-event medians (do_bench).
import sys, torch, triton, triton.language as tl
sys.path.insert(0, "bench")
from tile_ctypes import Libtile, ptr, i64, f64
lib = Libtile("build-exp/mc/libtile.so"); lib.init()

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
def t_heat1(out, u, rows, cols, st, a, BM: tl.constexpr, BN: tl.constexpr):
    i = (tl.program_id(0) * BM + tl.arange(0, BM))[:, None]
    j = (tl.program_id(1) * BN + tl.arange(0, BN))[None, :]
    tl.store(out + i * st + j, _heat(u, i, j, rows, cols, st, a), mask=(i < rows) & (j < cols))

@triton.jit
def t_heat2(out, u, rows, cols, st, a, BM: tl.constexpr, BN: tl.constexpr):
    i = (tl.program_id(0) * BM + tl.arange(0, BM))[:, None]
    j = (tl.program_id(1) * BN + tl.arange(0, BN))[None, :]
    c = _heat(u, i, j, rows, cols, st, a)
    lap = (_heat(u, i - 1, j, rows, cols, st, a) + _heat(u, i + 1, j, rows, cols, st, a)
           + _heat(u, i, j - 1, rows, cols, st, a) + _heat(u, i, j + 1, rows, cols, st, a) - 4.0 * c)
    tl.store(out + i * st + j, c + a * lap, mask=(i < rows) & (j < cols))

@triton.jit
def t_jacobi(out, u, rows, cols, st, a, BM: tl.constexpr, BN: tl.constexpr):
    i = (tl.program_id(0) * BM + tl.arange(0, BM))[:, None]
    j = (tl.program_id(1) * BN + tl.arange(0, BN))[None, :]
    inside = (i < rows) & (j < cols)
    interior = (i > 0) & (i < rows - 1) & (j > 0) & (j < cols - 1)
    p = u + i * st + j
    c = tl.load(p, mask=inside, other=0.0)
    lap = (tl.load(p - st, mask=interior, other=0.0) + tl.load(p + st, mask=interior, other=0.0)
           + tl.load(p - 1, mask=interior, other=0.0) + tl.load(p + 1, mask=interior, other=0.0) - 4.0 * c)
    tl.store(out + i * st + j, tl.where(interior, c + a * lap, c), mask=inside)

def ref(name, u, a):
    u = u.double(); r, c = u.shape
    p = torch.nn.functional.pad(u, (1, 1, 1, 1))
    def step(p):
        return p[1:-1, 1:-1] + a * (p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * p[1:-1, 1:-1])
    if name == "heat1": return step(p)
    if name == "heat2": return step(torch.nn.functional.pad(step(p), (1, 1, 1, 1)))
    out = u.clone(); out[1:-1, 1:-1] = step(p)[1:-1, 1:-1]; return out

s = torch.cuda.current_stream().cuda_stream
TR = {"heat1": t_heat1, "heat2": t_heat2, "jacobi": t_jacobi}
print("kernel | tile | n | Tile before µs | Tile now µs | Triton µs | now ÷ Triton (speed) | now ÷ before (speed)")
for BM, BN in ((16, 32), (32, 64)):
    for name in ("heat1", "heat2", "jacobi"):
        k0 = lib.kernel(f"build-exp/st/st_{BM}x{BN}_mc0.tlb", name)
        k1 = lib.kernel(f"build-exp/st/st_{BM}x{BN}_new.tlb", name)
        for n in (8192, 8190, 8193, 4096, 4095):
            u = torch.randn(n, n, device="cuda"); a = 0.1
            want = ref(name, u, a)
            res = []
            for k in (k0, k1, None):
                out = torch.full_like(u, float("nan"))
                if k is None:
                    g = (triton.cdiv(n, BM), triton.cdiv(n, BN))
                    f = lambda: TR[name][g](out, u, n, n, n, a, BM=BM, BN=BN, num_warps=4)
                else:
                    args = [ptr(out.data_ptr()), ptr(u.data_ptr()), i64(n), i64(n), i64(n), f64(a)]
                    f = lambda: k(args, s)
                f(); torch.cuda.synchronize()
                err = ((out.double() - want).abs().max() / want.abs().max()).item()
                assert err < 1e-5, (name, BM, BN, n, k, err)
                res.append(triton.testing.do_bench(f, warmup=25, rep=100) * 1000)
            print(f"{name} | {BM}x{BN} | {n} | " + " | ".join(f"{t:.1f}" for t in res)
                  + f" | {res[2] / res[1]:.3f} | {res[0] / res[1]:.3f}", flush=True)
