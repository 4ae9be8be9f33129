"""Host time per launch of the `tile` package's Python side, without a GPU:
libtile launches through the driver test double (tests/unit/fakecuda.so,
FAKE_CUDA_WORKING=1: every driver call succeeds; a launch only adds 1 to
out[0]), so the
time per call is the package's work plus libtile's own argument handling.
The bare ctypes call of tile_launch with arguments bound once is measured
beside it; the difference is what the Python side costs.

    make && make tests/unit/fakecuda.so python/tests/write_vadd_bundle
    PYTHONPATH=python python3 bench/py_launch_cpu.py [BUILDDIR]

Arguments are objects with __cuda_array_interface__ (CuPy/Numba style)
and, torch not being needed, stand-in tensors: a module named `torch` put
in sys.modules with a Tensor class answering dtype, is_cuda,
is_contiguous(), data_ptr() and get_device() as torch does (Python
methods, a little slower than torch's C ones) and torch._C's device and
raw-stream queries.
"""
import ctypes
import os
import subprocess
import sys
import tempfile
import time
import types

CALLS = 200000


class TLA(ctypes.Structure):
    """TileLaunchArg of runtime/tile.h."""
    _fields_ = [("kind", ctypes.c_int),
                ("v", type("V", (ctypes.Union,), {"_fields_": [
                    ("ptr", ctypes.c_uint64), ("i", ctypes.c_int64)]}))]


def per_call_us(fn, calls=CALLS):
    for _ in range(calls // 10):
        fn()
    best = None
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        us = (time.perf_counter() - t) / calls * 1e6
        best = us if best is None else min(best, us)
    return best


class CudaArray:
    def __init__(self, n, ptr):
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": "<f4",
                                         "data": (ptr, False), "strides": None,
                                         "version": 3}


def fake_torch():
    torch = types.ModuleType("torch")
    torch.float32 = object()
    torch._C = types.SimpleNamespace(_cuda_getDevice=lambda: 0,
                                     _cuda_getCurrentRawStream=lambda dev: 0)

    class Tensor:
        __slots__ = ("dtype", "is_cuda", "_ptr")

        def __init__(self, ptr):
            self.dtype, self.is_cuda, self._ptr = torch.float32, True, ptr

        def is_contiguous(self):
            return True

        def data_ptr(self):
            return self._ptr

        def get_device(self):
            return 0
    torch.Tensor = Tensor
    return torch


def main():
    build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    os.environ.setdefault("TILE_LIBDIR", f"{build}/.libs:{build}/runtime/.libs")
    os.environ["TILE_LIBCUDA"] = f"{build}/tests/unit/fakecuda.so"
    os.environ["FAKE_CUDA_WORKING"] = "1"
    bundle = os.path.join(tempfile.mkdtemp(), "vadd.tlb")
    subprocess.run([f"{build}/python/tests/write_vadd_bundle", bundle], check=True)
    torch = sys.modules["torch"] = fake_torch()   # before tile makes its kernels

    import tile
    from tile import gpu
    assert gpu.available(), gpu.unavailable_reason()
    n = 1024
    # The double's launch adds 1 to out[0]: the "device" memory is host memory.
    bufs = [(ctypes.c_float * n)() for _ in range(3)]
    ptrs = [ctypes.addressof(buf) for buf in bufs]

    # Bare ctypes: tile_launch with the argument array and prototypes bound once.
    lib = gpu.libtile().lib
    k = ctypes.c_void_p()
    b = ctypes.c_void_p()
    assert lib.tile_bundle_load(bundle.encode(), ctypes.byref(b)) == 0
    assert lib.tile_kernel_get(b, b"vadd", ctypes.byref(k)) == 0
    args = (TLA * 4)()
    for i, p in enumerate(ptrs):
        args[i].kind, args[i].v.ptr = 1, p
    args[3].kind, args[3].v.i = 2, n
    launch, kv, addr = lib.tile_launch, k.value, ctypes.addressof(args)
    launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    assert launch(kv, addr, 4, None) == 0

    mod = tile.load(bundle)
    vadd = mod.vadd
    ca = [CudaArray(n, p) for p in ptrs]
    tt = [torch.Tensor(p) for p in ptrs]
    rows = [("bare ctypes tile_launch (args bound once)", lambda: launch(kv, addr, 4, None)),
            ("tile package, __cuda_array_interface__ args",
             lambda: vadd(ca[0], ca[1], ca[2], n)),
            ("tile package, stand-in torch tensors", lambda: vadd(tt[0], tt[1], tt[2], n)),
            ("tile package, k[(1,)](...) stand-in tensors",
             lambda: vadd[(1,)](tt[0], tt[1], tt[2], n))]
    base = None
    for name, fn in rows:
        us = per_call_us(fn)
        base = us if base is None else base
        extra = "" if us is base else f"  (+{us - base:.2f} us Python side)"
        print(f"{name:46s} {us:6.2f} us per call{extra}")


if __name__ == "__main__":
    main()
