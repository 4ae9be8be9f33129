# Session 23: python/tests/test_torch.py's test_mlp_example_gradients as a
# script (the GPU machine has torch but no pytest): every parameter's
# gradient through the Tile operators of examples/torch/mlp_train.py, in the
# interpreter (the wheel's compiler library), against the PyTorch model's.
import itertools, os, sys, importlib.util
import torch, tile
HERE = os.environ.get("MLP_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "torch")
spec = importlib.util.spec_from_file_location("mlp_train", os.path.join(HERE, "mlp_train.py"))
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
mlp = tile.compile(os.path.join(m.HERE, "mlp.tile"), interpret=True)
ce = tile.compile(os.path.join(os.path.dirname(m.HERE), "cross_entropy.tile"), interpret=True)
ops = m.make_ops(mlp, ce, "gradcheck_mlp")
M, D, H, C = m.SIZES["tiny"]
params = m.init_params(D, H, C, torch.float32, "cpu")
(x, t), = m.batches(M, D, C, 1, torch.float32, "cpu")
grads = []
for fn in (lambda p, x, t: m.tile_loss(ops, p, x, t), m.torch_loss):
    p = {k: v.clone().requires_grad_() for k, v in params.items()}
    loss = fn(p, x, t)
    loss.backward()
    grads.append((loss.detach(), {k: v.grad for k, v in p.items()}))
(tl, tg), (rl, rg) = grads
print(f"loss   tile {tl.item():.7f} torch {rl.item():.7f} rel {abs(tl.item() - rl.item()) / abs(rl.item()):.2e}")
for k in params:
    d = (tg[k] - rg[k]).abs()
    print(f"{k:6s} max |diff| {d.max().item():.2e}  max |ref| {rg[k].abs().max().item():.2e}  "
          f"max |diff| / (|ref| + 1e-3 * max |ref|) {(d / (rg[k].abs() + 1e-3 * rg[k].abs().max())).max().item():.2e}", flush=True)
