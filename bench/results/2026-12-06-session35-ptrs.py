"""Session 35: the matmul whose pointer tiles the loop steps
(-session34-ptrs.tile, 128 x 256 x 64, 8 warps, 3 stages) built at
c4323e1 ("old": cp.async rings) and now ("new": TMA rings, the address's
k and k * ldb read as shifts of the box's coordinates), beside
examples/matmul.tile at the same tile (TMA rings), Triton (bench.py's
tr_matmul, same tile and stages) and cuBLAS. Outputs poisoned and checked
against float64 first, then best of three alternated do_bench medians.

    TILE_LIBDIR=DIR PYTHONPATH=python:bench python3 THIS OLD.tlb NEW.tlb MM.tlb"""
import sys

import tile
import bench
from abtime import check_then_time, mm_case, mm_check

bench.setup_torch()
bench.define_triton_matmul()
tr = bench.tr_matmul
old = tile.load(sys.argv[1]).matmul_ptrs
new = tile.load(sys.argv[2]).matmul_ptrs
mm = tile.load(sys.argv[3]).matmul
print("| shape | system | µs | TFLOP/s |\n| --- | --- | ---: | ---: |", flush=True)
for M, N, K in ((4096, 4096, 4096), (8192, 8192, 8192), (4104, 4104, 4104), (4000, 4000, 4000)):
    a, b, c, ref, scale, cublas = mm_case(M, N, K)
    grid = (bench.triton.cdiv(M, 128) * bench.triton.cdiv(N, 256),)
    fns = {"cuBLAS": cublas, "matmul.tile": lambda: mm(c, a, b, M, N, K, K, N, N),
           "pointers stepped, old": lambda: old(c, a, b, M, N, K, K, N, N),
           "pointers stepped, new": lambda: new(c, a, b, M, N, K, K, N, N),
           "triton s3": lambda: tr[grid](c, a, b, c, M, N, K, K, 1, N, 1, N, BM=128, BN=256,
                                         BK=64, GROUP=8, EPI=False, num_warps=8,
                                         num_stages=3)}
    c.fill_(float("nan"))
    best = check_then_time(fns, mm_check(c, ref, scale))
    for name, ms in best.items():
        print(f"| {M}x{N}x{K} | {name} | {ms * 1e3:.1f} | {2 * M * N * K / ms / 1e9:.0f} |",
              flush=True)
    del a, b, c, ref, fns
