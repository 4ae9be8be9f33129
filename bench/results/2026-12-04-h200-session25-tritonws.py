"""Session 25: what TMA, persistent programs and warp specialization buy
on the H200, measured with Triton 3.6's own forms of one product (issue
14's plan; Tile has none of the three yet), beside cuBLAS and Tile's
matmul at the same tile.

Variants of C = A @ B^T, A [M, K] and B [N, K] both K-major (B^T's layout
for TMA: a unit inner stride on both), 128x256x64 w8 s3 for f16, f32 (tf32)
at 128x256x32 s3:
  ptr           pointer loads (Triton pipelines them with cp.async)
  tma           host TensorDescriptor loads
  tma+ws        the same, tl.range(warp_specialize=True)
  tma+pers      persistent: one program per SM walking the tiles
  tma+pers+ws   both
Each output is checked against float64 first (relative error < 2e-3 f16,
5e-3 tf32); times are triton.testing.do_bench medians, three rounds
alternated, the best of three reported.

    TILE_LIBDIR=DIR python3 THIS [TILE_MATMUL_BUNDLE [MLP_F32_BUNDLE]]

Run 7 (CASES=tf32): the tf32 case alone, at stages 2, 3 and 4, with
Tile's matmul_strided of examples/torch/mlp.tile (the training step's dX
product) at the same tile (stages 3 and 4)."""
import os
import sys
import torch
import triton
import triton.language as tl
from triton.testing import do_bench

try:
    from triton.tools.tensor_descriptor import TensorDescriptor
except ImportError:           # older Triton
    TensorDescriptor = None

torch.backends.cuda.matmul.allow_tf32 = True
NUM_SMS = torch.cuda.get_device_properties(0).multi_processor_count


@triton.jit
def _pid(tile_id, num_pid_m, num_pid_n, GROUP: tl.constexpr):
    width = GROUP * num_pid_n
    first = (tile_id // width) * GROUP
    size = min(num_pid_m - first, GROUP)
    return first + (tile_id % width) % size, (tile_id % width) // size


@triton.jit
def mm_ptr(c, a, b, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
           GROUP: tl.constexpr):
    pm, pn = _pid(tl.program_id(0), tl.cdiv(M, BM), tl.cdiv(N, BN), GROUP)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        at = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        bt = tl.load(b + rn[:, None] * K + (k + rk)[None, :])
        acc = tl.dot(at, bt.T, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc.to(c.dtype.element_ty))


@triton.jit
def mm_tma(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
           BK: tl.constexpr, GROUP: tl.constexpr, WS: tl.constexpr, F32: tl.constexpr):
    pm, pn = _pid(tl.program_id(0), tl.cdiv(M, BM), tl.cdiv(N, BN), GROUP)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(tl.cdiv(K, BK), warp_specialize=WS):
        at = a_desc.load([pm * BM, k * BK])
        bt = b_desc.load([pn * BN, k * BK])
        acc = tl.dot(at, bt.T, acc)
    if F32:
        c_desc.store([pm * BM, pn * BN], acc)
    else:
        c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


@triton.jit
def mm_tma_pers(a_desc, b_desc, c_desc, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr, GROUP: tl.constexpr, WS: tl.constexpr,
                NUM_SMS: tl.constexpr, F32: tl.constexpr):
    num_pid_m, num_pid_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    for tile_id in tl.range(tl.program_id(0), num_pid_m * num_pid_n, NUM_SMS, flatten=True,
                            warp_specialize=WS):
        pm, pn = _pid(tile_id, num_pid_m, num_pid_n, GROUP)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(k_tiles):
            at = a_desc.load([pm * BM, k * BK])
            bt = b_desc.load([pn * BN, k * BK])
            acc = tl.dot(at, bt.T, acc)
        if F32:
            c_desc.store([pm * BM, pn * BN], acc)
        else:
            c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


def variants(a, b, c, M, N, K, BM, BN, BK, w, s):
    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)
    out = {"ptr": lambda: mm_ptr[grid](c, a, b, M, N, K, BM=BM, BN=BN, BK=BK, GROUP=8,
                                       num_warps=w, num_stages=s)}
    if TensorDescriptor is None:
        return out
    f32 = a.dtype == torch.float32
    ad = TensorDescriptor.from_tensor(a, [BM, BK])
    bd = TensorDescriptor.from_tensor(b, [BN, BK])
    cd = TensorDescriptor.from_tensor(c, [BM, BN])
    for ws in (False, True):
        tag = "+ws" if ws else ""
        out["tma" + tag] = (lambda ws=ws: mm_tma[grid](ad, bd, cd, M, N, K, BM=BM, BN=BN, BK=BK,
                                                        GROUP=8, WS=ws, F32=f32, num_warps=w,
                                                        num_stages=s))
        pg = (min(NUM_SMS, grid[0]),)
        out["tma+pers" + tag] = (lambda ws=ws, pg=pg: mm_tma_pers[pg](
            ad, bd, cd, M, N, K, BM=BM, BN=BN, BK=BK, GROUP=8, WS=ws, NUM_SMS=NUM_SMS, F32=f32,
            num_warps=w, num_stages=s))
    return out


def tile_variant(path, a, bt_kn, c, M, N, K, BM, BN, BK, w, s):
    """Tile's examples/matmul.tile (B row-major [K, N]) at the same tile."""
    import tile
    k = tile.load(path).matmul
    return lambda: k(c, a, bt_kn, M, N, K, K, N, N, BM=BM, BN=BN, BK=BK, warps=w, stages=s)


def main():
    rows = []
    cases = [("f16 4096^3", torch.float16, 4096, 4096, 4096, 128, 256, 64, 8, 3, 2e-3),
             ("f16 8192^3", torch.float16, 8192, 8192, 8192, 128, 256, 64, 8, 3, 2e-3),
             ("tf32 4096x1024x4096", torch.float32, 4096, 1024, 4096, 128, 256, 32, 8, 3, 5e-3)]
    if os.environ.get("CASES") == "tf32":
        cases = [(f"tf32 4096x1024x4096 s{st}", torch.float32, 4096, 1024, 4096, 128, 256, 32,
                  8, st, 5e-3) for st in (2, 3, 4)]
    for name, dt, M, N, K, BM, BN, BK, w, s, tol in cases:
        a = torch.randn(M, K, device="cuda", dtype=dt)
        b = torch.randn(N, K, device="cuda", dtype=dt)
        ref = a.double() @ b.double().t()
        scale = ref.abs().max().item()
        fns = {"cuBLAS (torch.matmul)": lambda: torch.matmul(a, b.t())}
        c = torch.empty(M, N, device="cuda", dtype=dt)
        fns.update(variants(a, b, c, M, N, K, BM, BN, BK, w, s))
        if len(sys.argv) > 2 and dt == torch.float32 and s > 2:
            import tile
            ms = tile.load(sys.argv[2]).matmul_strided
            fns["tile (mlp.tile matmul_strided)"] = (
                lambda ms=ms, s=s: ms(c, a, b, M, N, K, K, 1, 1, K, BM=BM, BN=BN, BK=BK, warps=w,
                                      stages=s))
        if len(sys.argv) > 1 and dt == torch.float16:
            bkn = b.t().contiguous()
            fns["tile (matmul.tile, B [K, N])"] = tile_variant(sys.argv[1], a, bkn, c, M, N, K,
                                                               BM, BN, BK, w, s)
        ok = {}
        for v, f in fns.items():
            try:
                c.fill_(float("nan"))
                r = f()
                torch.cuda.synchronize()
                got = r if isinstance(r, torch.Tensor) else c
                err = ((got.double() - ref).abs().max() / scale).item()
                ok[v] = err < tol
                if not ok[v]:
                    print(f"{name} {v}: WRONG, rel err {err:.2e}")
            except Exception as e:   # noqa: BLE001 -- a variant this Triton lacks
                print(f"{name} {v}: {type(e).__name__}: {str(e).splitlines()[0][:160]}")
        best = {v: float("inf") for v in fns if ok.get(v)}
        for _ in range(3):
            for v in best:
                best[v] = min(best[v], do_bench(fns[v], warmup=25, rep=200, return_mode="median"))
        flops = 2 * M * N * K
        for v, ms in best.items():
            rows.append((name, v, ms * 1e3, flops / ms / 1e9))
        del a, b, c, ref
        torch.cuda.empty_cache()
    print(f"\ntriton {triton.__version__}, torch {torch.__version__}, "
          f"{torch.cuda.get_device_name()}, {NUM_SMS} SMs")
    print(f"| case | variant | µs | TFLOP/s |\n| --- | --- | ---: | ---: |")
    for name, v, us, tf in rows:
        print(f"| {name} | {v} | {us:.1f} | {tf:.0f} |")


if __name__ == "__main__":
    main()
