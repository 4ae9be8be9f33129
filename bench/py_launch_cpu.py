"""Host time per launch of the `tile` package's Python side, without a GPU:
libtile launches through the driver test double (tests/unit/fakecuda.so,
FAKE_CUDA_WORKING=1: every driver call succeeds; a launch only adds 1 to
out[0]), so the time per call is the package's work plus libtile's own
argument handling. The bare ctypes call of tile_launch with arguments
bound once is measured beside it, in two forms: with ctypes prototypes
(argtypes, as bench.py's tile_ctypes calls it) and without (ready ctypes
values, the form the package's launchers use); the difference from the
latter is what the Python side costs. Times are CPU time
(time.process_time, the best of 5 loops of 100000 calls), which other
processes on a shared build machine disturb far less than the wall clock.

    make && make tests/unit/fakecuda.so python/tests/write_vadd_bundle
    PYTHONPATH=python python3 bench/py_launch_cpu.py [BUILDDIR]

Arguments are objects with __cuda_array_interface__ (CuPy/Numba style)
and, torch not being needed, stand-in tensors (python/tests/standin_torch.py:
a module named `torch` whose tensors answer dtype, is_cuda,
is_contiguous(), data_ptr() and get_device() as torch's do, in Python, a
little slower than torch's C methods), with torch.cuda.device_count() 1,
as on the H200, and 2 for the rows marked so (each tensor's device is
then asked for). Each row checks that every call launched (the double's
count of launches).
"""
import ctypes
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "python", "tests")]
import hosttime  # noqa: E402
import standin_torch  # noqa: E402

CALLS = 100000
REPEATS = 5


class TLA(ctypes.Structure):
    """TileLaunchArg of runtime/tile.h."""
    _fields_ = [("kind", ctypes.c_int),
                ("v", type("V", (ctypes.Union,), {"_fields_": [
                    ("ptr", ctypes.c_uint64), ("i", ctypes.c_int64)]}))]


def per_call_us(fn):
    """CPU time per call (process_time: steady on a machine shared with
    builds; there is no GPU to wait for), the best of 5 loops."""
    return hosttime.per_call_s(fn, calls=CALLS, warmup=CALLS // 10, repeats=REPEATS,
                               clock=time.process_time) * 1e6


class CudaArray:
    def __init__(self, n, ptr):
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": "<f4",
                                         "data": (ptr, False), "strides": None,
                                         "version": 3}


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    os.environ.setdefault("TILE_LIBDIR", f"{build}/.libs:{build}/runtime/.libs")
    fake = os.environ["TILE_LIBCUDA"] = f"{build}/tests/unit/fakecuda.so"
    os.environ["FAKE_CUDA_WORKING"] = "1"
    bundle = os.path.join(tempfile.mkdtemp(), "vadd.tlb")
    subprocess.run([f"{build}/python/tests/write_vadd_bundle", bundle], check=True)
    torch = standin_torch.install(devices=1)   # before tile makes its kernels

    import tile
    from tile import gpu
    assert gpu.available(), gpu.unavailable_reason()
    launches = ctypes.CDLL(fake).fake_cuda_launches   # the double libtile loaded
    n = 1024
    # The double's launch adds 1 to out[0]: the "device" memory is host memory.
    bufs = [(ctypes.c_float * n)() for _ in range(3)]
    ptrs = [ctypes.addressof(buf) for buf in bufs]

    # Bare ctypes: tile_launch with the argument array bound once, called
    # with prototypes (as tile_ctypes does) and without (ready values).
    lib = gpu.libtile().lib
    k = ctypes.c_void_p()
    b = ctypes.c_void_p()
    assert lib.tile_bundle_load(bundle.encode(), ctypes.byref(b)) == 0
    assert lib.tile_kernel_get(b, b"vadd", ctypes.byref(k)) == 0
    args = (TLA * 4)()
    for i, p in enumerate(ptrs):
        args[i].kind, args[i].v.ptr = 1, p
    args[3].kind, args[3].v.i = 2, n
    typed = lib["tile_launch"]
    typed.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    typed.restype = ctypes.c_int
    raw = lib["tile_launch"]
    raw.restype = ctypes.c_int
    kv, addr = k.value, ctypes.addressof(args)
    kp, ap, null = ctypes.c_void_p(kv), ctypes.c_void_p(addr), ctypes.c_void_p()
    assert typed(kv, addr, 4, None) == 0 and raw(kp, ap, 4, null) == 0

    vadd = tile.load(bundle).vadd
    torch2 = standin_torch.install(devices=2)
    vadd2 = tile.load(bundle).vadd          # made while torch sees two devices
    tt2 = [torch2.Tensor(p) for p in ptrs]
    ca = [CudaArray(n, p) for p in ptrs]
    tt = [torch.Tensor(p) for p in ptrs]
    rows = [("bare ctypes tile_launch, argtypes", lambda: typed(kv, addr, 4, None)),
            ("bare ctypes tile_launch, ready values", lambda: raw(kp, ap, 4, null)),
            ("tile package, __cuda_array_interface__ args",
             lambda: vadd(ca[0], ca[1], ca[2], n)),
            ("tile package, stand-in torch tensors", lambda: vadd(tt[0], tt[1], tt[2], n)),
            ("tile package, k[(1,)](...) stand-in tensors",
             lambda: vadd[(1,)](tt[0], tt[1], tt[2], n)),
            ("tile package, stand-in tensors, 2 devices",
             lambda: vadd2(tt2[0], tt2[1], tt2[2], n)),
            ("tile package, k[(1,)](...), 2 devices",
             lambda: vadd2[(1,)](tt2[0], tt2[1], tt2[2], n))]
    base = None
    for name, fn in rows:
        before = launches()
        us = per_call_us(fn)
        ran = launches() - before
        want = CALLS // 10 + REPEATS * CALLS
        if name.startswith("bare ctypes tile_launch, ready"):
            base = us
        extra = "" if base is None or us is base else f"  (+{us - base:.2f} us Python side)"
        print(f"{name:46s} {us:6.2f} us per call{extra}"
              + ("" if ran == want else f"  WRONG: {ran} launches of {want}"))


if __name__ == "__main__":
    main()
