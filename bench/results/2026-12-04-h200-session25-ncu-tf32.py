"""Session 25: what bounds Tile's TF32 products in the training step
against cuBLAS's (issue 15: 1.2x cuBLAS's time at the same shapes, session
24). One call each, after a warm-up, for Nsight Compute (run under ncu
with --section SpeedOfLight --section LaunchStats --section Occupancy):

  dX = g @ w^T  (matmul_strided 128x256x32 w8 s4, both operands K-major;
                 the training step's tuner pick) and torch.mm (tf32)
  linear 4096 x 1024 x 4096 (256x128x32 w8 s3, swapped) and torch.addmm

    TILE_LIBDIR=DIR python3 THIS BUNDLE_DIR"""
import os, sys
sys.path.insert(0, os.environ.get("TILE_PY", "python"))
import torch
import tile

torch.backends.cuda.matmul.allow_tf32 = True
mlp = tile.load(os.path.join(sys.argv[1], "mlp-f32.tlb"))
M, N, K = 4096, 1024, 4096
g = torch.randn(M, K, device="cuda")
w = torch.randn(N, K, device="cuda") * K ** -0.5
c = torch.empty(M, N, device="cuda")
x = torch.randn(M, K, device="cuda")
wl = torch.randn(K, N, device="cuda") * K ** -0.5
bias = torch.randn(N, device="cuda")
cl = torch.empty(M, N, device="cuda")
mm = lambda: mlp.matmul_strided(c, g, w, M, N, K, K, 1, 1, K, BM=128, BN=256, BK=32,  # noqa
                                warps=8, stages=4)
lin = lambda: mlp.linear(cl, x, wl, bias, M, N, K, BM=256, BN=128, BK=32,  # noqa
                         warps=8, stages=3)
for f in (mm, lin, lambda: torch.mm(g, w.t()), lambda: torch.addmm(bias, x, wl)):
    f()
torch.cuda.synchronize()
ref = g.double() @ w.double().t()
err = ((c.double() - ref).abs().max() / ref.abs().max()).item()
refl = x.double() @ wl.double() + bias.double()
errl = ((cl.double() - refl).abs().max() / refl.abs().max()).item()
print(f"checks: dX rel err {err:.2e}, linear rel err {errl:.2e} (tf32: < 2e-3)")
assert err < 2e-3 and errl < 2e-3
torch.cuda.synchronize()
for f in (mm, lambda: torch.mm(g, w.t()), lin, lambda: torch.addmm(bias, x, wl)):
    f()
torch.cuda.synchronize()
