"""tile_ctypes — the least Python needed to launch Tile kernels through libtile.

A thin ctypes layer over runtime/tile.h for the benchmark: load a bundle,
get a kernel, build its argument array once, launch it on a stream. It
imports neither torch nor numpy (pointers and streams are plain ints), so
that it can be checked on a machine without a GPU: loading bundles and
looking up kernels need no driver.

    lib = Libtile("build-gpu/libtile.so")
    k = lib.kernel("build-gpu/bench/vadd.tlb", "vadd")
    launch = k.bind([ptr(out), ptr(x), ptr(y), i64(n)], stream)
    launch()                      # one tile_launch, arguments prebuilt

`bind` builds the TileLaunchArg array once, so a launch costs one ctypes
call into tile_launch: the host time measured for "Tile from Python" is
libtile's plus ctypes'. (The `tile` Python package on branch `python` is
the user-facing binding; this file exists so the benchmark depends on
nothing but libtile.)
"""
import ctypes as C

TILE_LAUNCH_PTR, TILE_LAUNCH_INT, TILE_LAUNCH_FLOAT = 1, 2, 3


class _Value(C.Union):
    _fields_ = [("ptr", C.c_uint64), ("i", C.c_int64), ("f", C.c_double)]


class TileLaunchArg(C.Structure):
    _fields_ = [("kind", C.c_int), ("v", _Value)]


def ptr(address):
    a = TileLaunchArg()
    a.kind, a.v.ptr = TILE_LAUNCH_PTR, address
    return a


def i64(value):
    a = TileLaunchArg()
    a.kind, a.v.i = TILE_LAUNCH_INT, int(value)
    return a


def f64(value):
    a = TileLaunchArg()
    a.kind, a.v.f = TILE_LAUNCH_FLOAT, float(value)
    return a


class TileError(RuntimeError):
    pass


class Kernel:
    def __init__(self, lib, handle, name):
        self.lib, self.handle, self.name = lib, handle, name
        self.signature = lib.c.tile_kernel_signature(handle).decode()

    def bind(self, args, stream=0):
        """A function of no arguments that launches with `args` on `stream`
        (an int: CUstream / cudaStream_t, 0 for the default stream)."""
        n = len(args)
        arr = (TileLaunchArg * n)(*args)
        launch, k, s = self.lib.c.tile_launch, self.handle, C.c_void_p(stream or None)
        lib = self.lib

        def run():
            if launch(k, arr, n, s):
                raise TileError(f"{self.name}: {lib.last_error()}")
        return run

    def __call__(self, args, stream=0):
        self.bind(args, stream)()

    def config_names(self):
        """Every configuration, as "BLOCK=1024,warps=4" (bundle order)."""
        c = self.lib.c
        return [c.tile_kernel_config_name(self.handle, i).decode()
                for i in range(c.tile_kernel_nconfigs(self.handle))]

    def choose(self, args, stream=0):
        """The index of the configuration tile_launch would run with these
        arguments (tile_kernel_choose: tunes first when the key is new)."""
        n = len(args)
        arr = (TileLaunchArg * n)(*args)
        cfg = C.c_int(-1)
        if self.lib.c.tile_kernel_choose(self.handle, 0, None, arr, n,
                                         C.c_void_p(stream or None), C.byref(cfg)):
            raise TileError(f"{self.name}: {self.lib.last_error()}")
        return cfg.value


class Libtile:
    def __init__(self, path):
        c = self.c = C.CDLL(path)
        c.tile_init.restype = C.c_int
        c.tile_bundle_load.argtypes = [C.c_char_p, C.POINTER(C.c_void_p)]
        c.tile_bundle_load.restype = C.c_int
        c.tile_kernel_get.argtypes = [C.c_void_p, C.c_char_p, C.POINTER(C.c_void_p)]
        c.tile_kernel_get.restype = C.c_int
        c.tile_launch.argtypes = [C.c_void_p, C.POINTER(TileLaunchArg), C.c_int, C.c_void_p]
        c.tile_launch.restype = C.c_int
        c.tile_last_error.restype = C.c_char_p
        c.tile_kernel_signature.argtypes = [C.c_void_p]
        c.tile_kernel_signature.restype = C.c_char_p
        c.tile_kernel_nconfigs.argtypes = [C.c_void_p]
        c.tile_kernel_nconfigs.restype = C.c_int
        c.tile_kernel_config_name.argtypes = [C.c_void_p, C.c_int]
        c.tile_kernel_config_name.restype = C.c_char_p
        c.tile_kernel_choose.argtypes = [C.c_void_p, C.c_int, C.c_void_p,
                                         C.POINTER(TileLaunchArg), C.c_int, C.c_void_p,
                                         C.POINTER(C.c_int)]
        c.tile_kernel_choose.restype = C.c_int
        self.bundles = {}

    def last_error(self):
        return self.c.tile_last_error().decode(errors="replace")

    def init(self):
        if self.c.tile_init():
            raise TileError(self.last_error())

    def kernel(self, bundle_path, name, fresh=False):
        """The kernel `name` of the bundle; the bundle is loaded once per
        path, or loaded anew with fresh=True (a new bundle handle: libtile
        reads TILE_AUTOTUNE then, and its tuning table starts empty)."""
        b = None if fresh else self.bundles.get(bundle_path)
        if b is None:
            b = C.c_void_p()
            if self.c.tile_bundle_load(bundle_path.encode(), C.byref(b)):
                raise TileError(self.last_error())
            if not fresh:
                self.bundles[bundle_path] = b
        k = C.c_void_p()
        if self.c.tile_kernel_get(b, name.encode(), C.byref(k)):
            raise TileError(self.last_error())
        return Kernel(self, k, name)
