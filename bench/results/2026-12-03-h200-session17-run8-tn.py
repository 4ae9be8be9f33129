# TF32 A^T @ B (A stored [K, M], B [K, N]) at n^3: cuBLAS, Triton (3 tiles)
# and Tile's three tiles from build-gpu-old (df18cff), build-gpu-s3 (501768b:
# A staged) and build-gpu (A from registers), one process; outputs poisoned,
# checked against float64. Also bench.py's rows for B [K, N] from the
# three dirs (as in mmlayout).
import sys, os, argparse
sys.path.insert(0, "bench")
import torch
import bench as B
from tile_ctypes import Libtile, i64, ptr
B.ARGS = argparse.Namespace(build="build-gpu", out=None)
B.LIB = Libtile("build-gpu/libtile.so")
import configs
B.setup_torch()
B.define_triton_matmul()
torch.backends.cuda.matmul.allow_tf32 = True
tiles = configs.MMLAYOUT_TILES["f32"]
for n in (4096, 8192):
    as_ = torch.rand(n, n, device="cuda") * 2 - 1
    bs = torch.rand(n, n, device="cuda") * 2 - 1
    a, b = as_.t(), bs
    out = torch.empty(n, n, device="cuda")
    ref = a.double() @ b.double()
    work, fl = f"mm tf32 A[km] B[kn] {n}^3", 2 * n ** 3
    B.timed_flops(work, "torch.matmul (cuBLAS)", lambda: torch.matmul(a, b), ref, 5e-3, fl)
    for bm, bn, bk, w in tiles:
        grid = ((n + bm - 1) // bm * ((n + bn - 1) // bn),)
        B.timed_flops(work, f"triton {bm}x{bn}x{bk} w{w} s3",
                      lambda: B.tr_matmul[grid](out, a, b, a, n, n, n, a.stride(0), a.stride(1),
                                                b.stride(0), b.stride(1), n, BM=bm, BN=bn, BK=bk,
                                                GROUP=8, EPI=False, num_warps=w, num_stages=3),
                      ref, 5e-3, fl, out=out)
    for d, tag in (("build-gpu-old", "before"), ("build-gpu-s3", "A staged"), ("build-gpu", "A regs")):
        for bm, bn, bk, w in tiles:
            k = B.LIB.kernel(f"{d}/bench/{configs.mmlayout_bundle('f32', 'tn', bm, bn, bk, w)}.tlb",
                             "matmul_tn")
            args = [ptr(out.data_ptr()), ptr(as_.data_ptr()), ptr(bs.data_ptr())] + [i64(n)] * 6
            B.timed_flops(work, f"tile {tag} {bm}x{bn}x{bk} w{w}", k.bind(args, B.stream()),
                          ref, 5e-3, fl, out=out)
    del as_, bs, a, b, out, ref
