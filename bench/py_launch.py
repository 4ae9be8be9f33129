"""Host time per launch from Python, the way users launch: the `tile`
package (python/tile: argument checks against the signature, torch tensors,
torch's current stream) beside Triton's launcher and torch.add, in one
process on one GPU (ISSUE 5: Tile at most half of Triton's).

    python3 bench/py_launch.py BUNDLE.tlb      # vadd bundle (examples/vadd.tile)

Each system launches a one-block vadd 20000 times after 1000 warm-up calls;
the host clock is read around the loop (the GPU work is tiny, so the loop
measures the launch path), then the device is synchronized and the result
checked against x + y.
"""
import sys
import time

import torch
import triton
import triton.language as tl

import tile


@triton.jit
def tr_add(out, x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


def per_call_us(fn, calls=20000):
    for _ in range(1000):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    host = (time.perf_counter() - t) / calls * 1e6
    torch.cuda.synchronize()
    return host


def main():
    n = 1024
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    k = tile.load(sys.argv[1]).vadd
    systems = [("tile package: mod.vadd(out, x, y, n)", lambda: k(out, x, y, n)),
               ("triton: tr_add[(1,)](...)", lambda: tr_add[(1,)](out, x, y, n, BLOCK=1024)),
               ("torch.add(x, y, out=out)", lambda: torch.add(x, y, out=out))]
    res = {}
    for name, fn in systems:
        out.fill_(float("nan"))
        us = per_call_us(fn)
        ok = torch.equal(out, x + y)
        res[name] = us
        print(f"{name:42s} {us:7.2f} us per launch  {'ok' if ok else 'WRONG RESULT'}")
    t, tr = res[systems[0][0]], res[systems[1][0]]
    print(f"tile / triton host time: {t / tr:.3f} (target <= 0.5: {'met' if t / tr <= 0.5 else 'missed'})")


if __name__ == "__main__":
    main()
