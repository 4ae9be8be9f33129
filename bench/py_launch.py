"""Host time per launch from Python, the way users launch: the `tile`
package (python/tile: argument checks against the signature, torch tensors,
torch's current stream) beside Triton's launcher and torch.add, in one
process on one GPU (ISSUE 5: Tile at most half of Triton's).

    python3 bench/py_launch.py BUNDLE.tlb [ROUNDS]   # vadd (examples/vadd.tile)

On the GPU machine, after `scripts/gpu-bench.sh prepare` here (which
builds build-gpu/libtile.so and build-gpu/examples/vadd.tlb):

    TILE_LIBDIR=build-gpu PYTHONPATH=python \\
        python3 bench/py_launch.py build-gpu/examples/vadd.tlb

Rows: libtile's tile_launch called through bare ctypes with the argument
array bound once, with prototypes (argtypes, as bench.py's tile_ctypes
calls it) and with ready ctypes values (the call the package's launchers
make: the floor of any ctypes binding); the package's `mod.vadd(out, x,
y, n)` (grid from the kernel) and `mod.vadd[(1,)](...)` (explicit grid,
its launcher kept per grid); Triton's `tr_add[(1,)](...)`; torch.add. Each
launches a one-block vadd 20000 times after 1000 warm-up calls
(bench/hosttime.py: the host clock around the loop; the GPU work is tiny,
so the loop measures the launch path), then the result is checked against
x + y. Every round (default 3) times all rows in turn, so that a machine
whose speed drifts moves them together; the ratios to Triton are printed
per round and their median judged against the target.
"""
import ctypes
import os
import statistics
import sys

import torch
import triton
import triton.language as tl

import tile
from tile import gpu

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hosttime  # noqa: E402


@triton.jit
def tr_add(out, x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


class TileLaunchArg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("v", ctypes.c_uint64)]   # pointers and ints only


def bare_ctypes(bundle, out, x, y, n):
    """tile_launch through ctypes with everything bound once: (with
    argtypes, with ready values) launch functions."""
    lib = gpu.libtile().lib
    b, k = ctypes.c_void_p(), ctypes.c_void_p()
    assert lib.tile_bundle_load(bundle.encode(), ctypes.byref(b)) == 0, gpu.libtile().message()
    assert lib.tile_kernel_get(b, b"vadd", ctypes.byref(k)) == 0, gpu.libtile().message()
    args = (TileLaunchArg * 4)((1, out.data_ptr()), (1, x.data_ptr()), (1, y.data_ptr()),
                               (2, n))
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    typed = lib["tile_launch"]
    typed.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    raw = lib["tile_launch"]
    typed.restype = raw.restype = ctypes.c_int
    kv, kp = k.value, ctypes.c_void_p(k.value)
    return lambda: typed(kv, args, 4, stream), lambda: raw(kp, args, 4, stream)


def main():
    bundle = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    n = 1024
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    k = tile.load(bundle).vadd
    typed, raw = bare_ctypes(bundle, out, x, y, n)
    call, grid, triton_row = ("tile package: mod.vadd(out, x, y, n)",
                              "tile package: mod.vadd[(1,)](...)", "triton: tr_add[(1,)](...)")
    systems = [("bare ctypes tile_launch, argtypes", typed),
               ("bare ctypes tile_launch, ready values", raw),
               (call, lambda: k(out, x, y, n)),
               (grid, lambda: k[(1,)](out, x, y, n)),
               (triton_row, lambda: tr_add[(1,)](out, x, y, n, BLOCK=1024)),
               ("torch.add(x, y, out=out)", lambda: torch.add(x, y, out=out))]
    ratios = {call: [], grid: []}
    for r in range(rounds):
        print(f"round {r + 1} of {rounds}")
        res = {}
        for name, fn in systems:
            out.fill_(float("nan"))
            us = hosttime.per_call_s(fn, sync=torch.cuda.synchronize) * 1e6
            ok = torch.equal(out, x + y)
            res[name] = us
            print(f"  {name:42s} {us:7.2f} us per launch  {'ok' if ok else 'WRONG RESULT'}")
        for name in ratios:
            ratios[name].append(res[name] / res[triton_row])
        print("  tile / triton host time: " + ", ".join(
            f"{name.split(': ')[1]} {v[-1]:.3f}" for name, v in ratios.items()))
    for name, v in ratios.items():
        med = statistics.median(v)
        print(f"{name}: median {med:.3f} of Triton's host time over {rounds} rounds "
              f"(target <= 0.5: {'met' if med <= 0.5 else 'missed'})")


if __name__ == "__main__":
    main()
