#!/usr/bin/env python3
"""Data-parallel training of the MLP block of mlp_train.py -- every kernel
Tile, through tile.torch custom operators -- under PyTorch's
DistributedDataParallel, one process per device, launched by torchrun:

    torchrun --standalone --nproc_per_node=N examples/torch/ddp_train.py
    torchrun --standalone --nproc_per_node=2 examples/torch/ddp_train.py --device cpu

Each rank binds its device (cuda:LOCAL_RANK, torch.cuda.set_device, so its
Tile kernels load and run there, on torch's current stream; NCCL) or runs
on the CPU (gloo; the kernels run in Tile's interpreter). All ranks build
the same initial weights and the same global batches of M rows; rank r
trains on rows [r M/N, (r+1) M/N) of each, and DDP averages the gradients
over the ranks, which is the gradient of the mean loss over the whole
global batch. So after K steps of SGD the parameters must equal those of
one process training on the whole batches: rank 0 runs that reference
after the distributed run (the same model without DDP, from the same
weights), prints each parameter's largest difference relative to its
largest value, and every rank exits 1 when one exceeds the tolerance or
when the ranks' parameters differ from each other (0 otherwise).

Kernels: examples/torch/mlp.tile and examples/cross_entropy.tile through
tile.compile (every rank at once: the bundle cache lets one run tilec, the
others wait and load its bundle), or with --bundle-dir DIR from
DIR/mlp-f32.tlb and DIR/cross_entropy.tlb. Storage is f32 (on CUDA the
products run on tf32 tensor cores, as torch's with allow_tf32). Run
without torchrun, it is a job of one process (world size 1).
"""

import argparse
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mlp_train as mt        # noqa: E402  (puts python/ on sys.path for tile)


class Block(torch.nn.Module):
    """mlp_train's model as a module: its parameters, and the mean loss of
    a batch through the Tile operators."""

    def __init__(self, ops, params):
        super().__init__()
        self.ops = ops
        self.p = torch.nn.ParameterDict({k: torch.nn.Parameter(v.clone())
                                         for k, v in params.items()})

    def forward(self, x, t):
        return mt.tile_loss(self.ops, self.p, x, t)


def train(model, data, lr, rank, world):
    """SGD over this rank's share of each global batch: (its losses,
    seconds per step)."""
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    losses, t0 = [], time.perf_counter()
    for x, t in data:
        rows = x.shape[0] // world
        loss = model(x[rank * rows:(rank + 1) * rows], t[rank * rows:(rank + 1) * rows])
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        losses.append(loss.detach())
    losses = [v.item() for v in losses]
    return losses, (time.perf_counter() - t0) / max(len(data), 1)


def ranks_agree(params):
    """Do every rank's parameters equal rank 0's, bit for bit?"""
    same = True
    for v in params.values():
        mine = v.detach().clone()
        ref = mine.clone()
        dist.broadcast(ref, 0)
        same &= torch.equal(ref, mine)
    flag = torch.tensor([int(same)], device=next(iter(params.values())).device)
    dist.all_reduce(flag, op=dist.ReduceOp.MIN)
    return bool(flag.item())


def compare(trained, reference):
    """{name: largest |difference| / largest |reference value|}."""
    out = {}
    for k, ref in reference.items():
        d = (trained[k].detach().double() - ref.detach().double()).abs().max().item()
        out[k] = d / max(ref.detach().double().abs().max().item(), 1e-30)
    return out


def single_process_env():
    """The variables torchrun sets, for a run without it: a job of one."""
    if "RANK" in os.environ:
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    os.environ.update(RANK="0", WORLD_SIZE="1", LOCAL_RANK="0", MASTER_ADDR="127.0.0.1",
                      MASTER_PORT=str(port))


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", choices=["cuda", "cpu"],
                    default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--backend", default=None, help="default: nccl on cuda, gloo on the CPU")
    ap.add_argument("--size", choices=mt.SIZES, default=None,
                    help="default: small on cuda, tiny on the CPU")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--bundle-dir", default=None)
    ap.add_argument("--tol", type=float, default=None,
                    help="largest relative parameter difference allowed "
                         "(default 1e-5 on the CPU, 1e-3 on cuda: tf32 products)")
    return ap.parse_args(argv)


def setup(args):
    """Joins the job: (rank, world size, device)."""
    single_process_env()
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ["LOCAL_RANK"])
    if args.device == "cuda":
        torch.cuda.set_device(local)       # this rank's device: Tile launches there
        device = torch.device("cuda", local)
        torch.backends.cuda.matmul.allow_tf32 = True
    else:
        device = torch.device("cpu")
    backend = args.backend or ("nccl" if args.device == "cuda" else "gloo")
    if backend == "nccl":
        dist.init_process_group(backend, device_id=device)
    else:
        dist.init_process_group(backend)
    return rank, world, device, backend


def report(world, diffs, tol, agree, losses, ref_losses):
    """Rank 0's table; True when the run matched."""
    print(f"\n{'parameter':<10}{'max |ddp - single| / max |single|':>36}")
    for k, v in diffs.items():
        print(f"{k:<10}{v:>36.3e}")
    worst = max(diffs.values())
    checks = [(f"{world} rank(s) hold the same parameters", agree),
              (f"parameters after {len(losses)} steps within {tol:g} of the single-process "
               f"run (largest {worst:.3e})", worst <= tol),
              ("the loss decreases (single process)",
               len(ref_losses) < 2 or ref_losses[-1] < ref_losses[0])]
    print()
    for what, ok in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {what}")
    ok = all(c for _, c in checks)
    print("PASS" if ok else "FAIL")
    return ok


def main(argv=None):
    args = parse(argv)
    rank, world, device, backend = setup(args)
    size = args.size or ("small" if args.device == "cuda" else "tiny")
    M, D, H, C = mt.SIZES[size]
    if M % world:
        sys.exit(f"ddp_train.py: the global batch of {M} rows does not split over "
                 f"{world} ranks")
    tol = args.tol or (1e-3 if args.device == "cuda" else 1e-5)
    mlp, ce = mt.load_kernels(args, "f32")
    ops = mt.make_ops(mlp, ce, f"tile_ddp_{os.getpid()}")
    params = mt.init_params(D, H, C, torch.float32, device)
    data = mt.batches(M, D, C, args.steps, torch.float32, device)
    if rank == 0:
        print(f"{world} rank(s), {backend}, Tile {'interpreter' if mlp.interpret else 'GPU'}, "
              f"size {size} (M={M} D={D} H={H} C={C}), {M // world} rows per rank, "
              f"{args.steps} steps, torch {torch.__version__}", flush=True)
    dist.barrier()
    print(f"rank {rank}: device {device}", flush=True)

    model = DistributedDataParallel(
        Block(ops, params), device_ids=[device.index] if device.type == "cuda" else None)
    losses, step_s = train(model, data, args.lr, rank, world)
    agree = ranks_agree(dict(model.module.p))
    ok = True
    if rank == 0:
        single = Block(ops, params)
        ref_losses, ref_s = train(single, data, args.lr, 0, 1)
        print(f"ddp: {step_s * 1e3:.2f} ms/step, single process: {ref_s * 1e3:.2f} ms/step "
              f"(first steps include autotuning); losses of rank 0: {losses[0]:.5f} -> "
              f"{losses[-1]:.5f}, single process: {ref_losses[0]:.5f} -> {ref_losses[-1]:.5f}")
        ok = report(world, compare(model.module.p, single.p), tol, agree, losses,
                    ref_losses)
    verdict = torch.tensor([int(ok)], device=device)
    dist.broadcast(verdict, 0)
    dist.destroy_process_group()
    return 0 if verdict.item() else 1


if __name__ == "__main__":
    sys.exit(main())
