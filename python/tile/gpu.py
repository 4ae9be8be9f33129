"""GPU mode: kernels launched through libtile (runtime/tile.h) from
bundles that `tilec --emit=bundle -o x.tlb` writes.

tile.load opens a bundle; tile.compile runs tilec first (through the
on-disk cache of _cache.py). A kernel's launch path is kept thin: each
kernel gets a generated launcher (GPUKernel._make_launcher) that tests the
common argument forms inline, writes them into the kernel's TileLaunchArg
array in place and makes one ctypes call on torch's current stream (the
default stream when torch is not in use); other forms and the errors go
to each parameter's checker, made once.
Errors of libtile come back with its message: a missing driver or device
as GPUUnavailableError, a rejected argument as ArgumentError, anything
else as LaunchError.

Configuration keywords (k(..., BLOCK=1024, warps=4)) become a libtile
selection (tile_kernel_select, made once per distinct set of keywords):
the launch runs among the selected configurations whose @require holds,
autotuned by libtile when several remain; without keywords libtile
autotunes among all. k.choose(*args, **config) returns the configuration
a launch would run (tuning first if needed) without launching it.
Pointers the kernel stores through (tile_kernel_param_stored) must not be
read-only (__cuda_array_interface__'s readonly flag).
"""

import ctypes
import os
import struct
import sys
import threading

from . import _cache, _libs
from ._device import pointer_checker
from ._scalars import scalar_checker
from ._types import FLOATS, INT_RANGE, TORCH, Param
from .errors import (ArgumentError, BundleError, ConfigError, GPUUnavailableError,
                     LaunchError, LibraryNotFoundError)
from .kernel import Kernel, Module as ModuleBase, parse_configs

# TileStatus values of tile.h.
_OK, _INVALID_VALUE, _IO, _INVALID_BUNDLE, _NOT_FOUND, _ARGUMENT = 0, 1, 2, 3, 4, 5
_NO_CONFIG = 6
_NO_DRIVER, _DRIVER_TOO_OLD, _NO_DEVICE = 8, 9, 10
_PTR, _INT, _FLOAT = 1, 2, 3       # TileLaunchArgKind


class _LaunchValue(ctypes.Union):
    _fields_ = [("ptr", ctypes.c_uint64), ("i", ctypes.c_int64), ("f", ctypes.c_double)]


class TileLaunchArg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("v", _LaunchValue)]


def _torch_dtype(torch, elem):
    """torch's dtype object of an element type ('f32'), or None."""
    if torch is None:
        return None
    return getattr(torch, {v: k for k, v in TORCH.items()}[elem], None)


class Libtile:
    """libtile with its prototypes."""

    def __init__(self):
        lib, self.path = _libs.find_and_load("tile")
        self.lib = lib
        P, I, S = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
        for name, res, args in [
                ("tile_init", I, []),
                ("tile_bundle_load", I, [S, ctypes.POINTER(P)]),
                ("tile_bundle_free", None, [P]),
                ("tile_kernel_get", I, [P, S, ctypes.POINTER(P)]),
                ("tile_launch", I, [P, P, I, P]),
                ("tile_launch_grid", I, [P, S, P, I, P]),
                ("tile_last_error", S, []),
                ("tile_status_name", S, [I]),
                ("tile_kernel_nparams", I, [P]),
                ("tile_kernel_param", I, [P, I, ctypes.POINTER(S), ctypes.POINTER(S)]),
                ("tile_bundle_nkernels", I, [P]),
                ("tile_bundle_kernel", S, [P, I]),
                ("tile_kernel_select", I, [P, S, ctypes.POINTER(I)]),
                ("tile_launch_select", I, [P, I, S, P, I, P, ctypes.POINTER(I)]),
                ("tile_kernel_choose", I, [P, I, S, P, I, P, ctypes.POINTER(I)]),
                ("tile_kernel_nconfigs", I, [P]),
                ("tile_kernel_config_name", S, [P, I]),
                ("tile_kernel_grid_dims", I, [P]),
                ("tile_kernel_param_stored", I, [P, I])]:
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        root = _libs.tree_root(self.path)
        self.build_top = root
        self.stdlib_dir = os.path.join(root, "stdlib") if root else None

    def message(self):
        return (self.lib.tile_last_error() or b"").decode("utf-8", "replace")


_libtile = None
_init_status = None


def libtile():
    """The loaded libtile; GPUUnavailableError when it cannot be loaded."""
    global _libtile
    if _libtile is None:
        try:
            _libtile = Libtile()
        except LibraryNotFoundError as e:
            raise GPUUnavailableError(f"GPU runtime not available: {e}") from None
    return _libtile


def _init():
    """tile_init once: (status, message)."""
    global _init_status
    if _init_status is None:
        lt = libtile()
        rc = lt.lib.tile_init()
        _init_status = (rc, lt.message() if rc else "")
    return _init_status


def available():
    """Can kernels run on the GPU here (libtile, a CUDA driver, a device)?"""
    try:
        return _init()[0] == _OK
    except GPUUnavailableError:
        return False


def unavailable_reason():
    """Why available() is False ("" when it is True)."""
    try:
        return _init()[1]
    except GPUUnavailableError as e:
        return str(e)


def load_bundle(path, source=None):
    """A GPUModule of the bundle at `path` (compiled from `source`, when
    tile.compile made it)."""
    lt = libtile()
    b = ctypes.c_void_p()
    if lt.lib.tile_bundle_load(os.fsencode(path), ctypes.byref(b)) != _OK:
        raise BundleError(lt.message())
    return GPUModule(source or path, path, b.value, lt)


def compile_file(path, defines, include_dirs, arch, debug):
    lt = libtile()
    bundle = _cache.compile_bundle(path, defines, include_dirs, arch, debug,
                                   lt.build_top, lt.stdlib_dir)
    return load_bundle(bundle, path)


class GPUModule(ModuleBase):
    """A loaded bundle; kernels are attributes (mod.vadd) or items."""

    interpret = False

    def __init__(self, path, bundle_path, bundle, lt):
        self._lt = lt
        self._bundle = bundle
        self.bundle_path = bundle_path
        n = lt.lib.tile_bundle_nkernels(bundle)
        super().__init__(path, [lt.lib.tile_bundle_kernel(bundle, i).decode()
                                for i in range(n)])

    def __del__(self):
        b, self._bundle = getattr(self, "_bundle", None), None
        if b:
            self._lt.lib.tile_bundle_free(b)

    def __repr__(self):
        return f"<tile module {self.path} (GPU): {', '.join(self.kernels)}>"

    def _make_kernel(self, name):
        return GPUKernel(self, name)


def _torch_stream():
    """A function () -> (current CUDA device, its current torch stream
    handle), or None when torch is not imported."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    device = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is None:
        def raw(dev):
            return torch.cuda.current_stream(dev).cuda_stream

    def current():
        dev = device()
        return dev, raw(dev)
    return current


_FILL_POINTER = """\
    if type(a{i}) is Tensor and a{i}.dtype is dtype{i} and a{i}.is_cuda and a{i}.is_contiguous():
        slot{i}.value = a{i}.data_ptr()
        d{i} = a{i}.get_device()
    else:
        slot{i}.value, d{i} = check{i}(a{i})
"""
_FILL_INT = """\
    if type(a{i}) is int and {lo} <= a{i} < {hi}:
        slot{i}.value = a{i}
    else:
        slot{i}.value = check{i}(a{i})
"""
_FILL_FLOAT = """\
    slot{i}.value = a{i} if type(a{i}) is float else check{i}(a{i})
"""
_FILL_OTHER = """\
    slot{i}.value = check{i}(a{i})
"""
_FILL_STREAM = """\
    if dev is None:
        stream = None
    elif raw_stream is None:
        stream = late_stream(dev)
    else:
        current = current_device()
        if current != dev:
            wrong_device(dev, current)
        stream = raw_stream(dev)
"""
_LAUNCHER = """\
def launch(args, kwargs):
    if kwargs or len(args) != {n} or not acquire(False):
        return general(None, args, kwargs)
    try:
        {names}, = args
{body}\
        rc = launch_c(kernel, address, {n}, stream)
    finally:
        release()
    if rc:
        fail(rc, None)
"""


class _NoTensor:
    """Stands for torch.Tensor when torch is not imported: no argument is one."""


class GPUKernel(Kernel):
    """A kernel of a bundle, launched through libtile."""

    def __init__(self, module, name):
        lt = module._lt
        k = ctypes.c_void_p()
        if lt.lib.tile_kernel_get(module._bundle, name.encode(), ctypes.byref(k)) != _OK:
            raise BundleError(lt.message())
        params = []
        for i in range(lt.lib.tile_kernel_nparams(k)):
            pname, ptype = ctypes.c_char_p(), ctypes.c_char_p()
            lt.lib.tile_kernel_param(k, i, ctypes.byref(pname), ctypes.byref(ptype))
            t = ptype.value.decode()
            params.append(Param(pname.value.decode(), t.lstrip("*"), t.startswith("*"),
                                lt.lib.tile_kernel_param_stored(k, i) == 1))
        configs = parse_configs("\n".join(
            lt.lib.tile_kernel_config_name(k, i).decode()
            for i in range(lt.lib.tile_kernel_nconfigs(k))))
        super().__init__(name, params, configs, lt.lib.tile_kernel_grid_dims(k) > 0)
        self._module, self._k, self._lt = module, k.value, lt
        self._nargs = len(params)
        self._launch_c = lt.lib.tile_launch
        self._launch_grid_c = lt.lib.tile_launch_grid
        self._launch_select_c = lt.lib.tile_launch_select
        self._selections = {}
        self._stream = _torch_stream()
        # The general path (keywords, explicit grids, choose, a launch of
        # this kernel already filling self._args in another thread): one
        # checker per parameter, the values packed into bytes per call.
        self._checkers = [(pointer_checker if p.pointer else scalar_checker)(name, i, p)
                          for i, p in enumerate(params)]
        self._pointer = [p.pointer for p in params]
        kinds = [_PTR if p.pointer else _FLOAT if p.type in FLOATS else _INT for p in params]
        self._template = [v for kind in kinds for v in (kind, 0)]
        self._pack = struct.Struct("=" + "".join(
            "i4x" + ("Q" if kind == _PTR else "d" if kind == _FLOAT else "q")
            for kind in kinds)).pack
        # The fast path k(*args): self._args filled in place by _call, under
        # a lock taken without waiting (the array is the kernel's, and the
        # foreign call releases the GIL).
        lock = threading.Lock()
        self._acquire, self._release = lock.acquire, lock.release
        self._args = (TileLaunchArg * max(len(params), 1))()
        self._addr = ctypes.addressof(self._args)
        self._call = self._make_launcher()

    def _make_launcher(self):
        """The function (args, kwargs) behind k(*args, **kwargs).

        Without keywords and with the right number of arguments it checks
        the arguments, writes them into self._args in place, finds the
        stream and calls tile_launch; anything else goes the general way
        (Kernel._launch). It is generated per kernel (as Triton generates
        its launchers) so that the common cases -- a torch tensor of the
        right dtype, an int in range, a float -- cost a few inlined tests
        and no lookups; anything else goes to the parameter's checker
        (_device.pointer_checker, _scalars.scalar_checker), which accepts
        the other forms and raises the error messages."""
        if not self.params or not self.has_grid:
            return lambda args, kwargs: self._launch(None, args, kwargs)
        torch = sys.modules.get("torch")
        tc = getattr(torch, "_C", None)
        env = {"Tensor": torch.Tensor if torch is not None else _NoTensor,
               "current_device": getattr(tc, "_cuda_getDevice", None),
               "raw_stream": getattr(tc, "_cuda_getCurrentRawStream", None),
               "late_stream": self._late_stream, "wrong_device": self._wrong_device,
               "agree": self._agreeing_device, "acquire": self._acquire,
               "release": self._release, "general": self._launch, "fail": self._fail,
               "launch_c": self._launch_c, "kernel": self._k, "address": self._addr}
        if env["current_device"] is None:
            env["raw_stream"] = None        # torch.cuda's slower path (_late_stream)
        names = [f"a{i}" for i in range(self._nargs)]
        body, devices = [], []
        for i, p in enumerate(self.params):
            arg = self._args[i]
            arg.kind = _PTR if p.pointer else _FLOAT if p.type in FLOATS else _INT
            slot_type = (ctypes.c_uint64 if p.pointer else
                         ctypes.c_double if p.type in FLOATS else ctypes.c_int64)
            env[f"slot{i}"] = slot_type.from_buffer(self._args, i * ctypes.sizeof(
                TileLaunchArg) + TileLaunchArg.v.offset)
            if p.pointer:
                env[f"check{i}"] = pointer_checker(self.name, i, p)
                env[f"dtype{i}"] = _torch_dtype(torch, p.type)
                body.append(_FILL_POINTER.format(i=i))
                devices.append(f"d{i}")
                continue
            env[f"check{i}"] = scalar_checker(self.name, i, p)
            if p.type in INT_RANGE:
                lo, hi = INT_RANGE[p.type]
                body.append(_FILL_INT.format(i=i, lo=lo, hi=hi))
            else:
                body.append((_FILL_FLOAT if p.type in FLOATS else _FILL_OTHER).format(i=i))
        if not devices:
            body.append("    stream = None\n")
        else:
            if len(devices) == 1:
                body.append(f"    dev = {devices[0]}\n")
            else:
                body.append(f"    dev = {devices[0]} if {' == '.join(devices)} else "
                            f"agree(({', '.join(devices)},))\n")
            body.append(_FILL_STREAM)
        body = "".join("    " + line if line else line
                       for line in "".join(body).splitlines(True))
        src = _LAUNCHER.format(n=self._nargs, names=", ".join(names), body=body)
        exec(compile(src, f"<tile launcher of {self.name}>", "exec"), env)
        return env["launch"]

    def _agreeing_device(self, devices):
        """The device of the pointer arguments (None when none tells);
        ArgumentError naming the first one on another device."""
        dev = None
        for d, i in zip(devices, (i for i, p in enumerate(self.params) if p.pointer)):
            if d is not None:
                if dev is None:
                    dev = d
                elif d != dev:
                    raise ArgumentError(self.name, f"is on device {d}, but an earlier "
                                        f"argument is on device {dev}", i,
                                        self.params[i].name)
        return dev

    def _wrong_device(self, dev, current):
        raise ArgumentError(self.name, f"the tensors are on cuda:{dev} but the "
                            f"current device is cuda:{current} (launch inside "
                            f"torch.cuda.device({dev}))")

    def _late_stream(self, dev):
        """The stream for tensors on `dev` when torch's raw-stream query was
        not bound when the kernel was made (torch imported since, or an
        older torch)."""
        if self._stream is None:
            self._stream = _torch_stream()      # torch imported since
            if self._stream is None:
                return None
        current, stream = self._stream()
        if dev != current:
            self._wrong_device(dev, current)
        return stream

    def __call__(self, *args, **kwargs):
        return self._call(args, kwargs)

    def _selection(self, config):
        """libtile's selection id for a "NAME=V,..." string (made once)."""
        sel = self._selections.get(config)
        if sel is None:
            out = ctypes.c_int()
            rc = self._lt.lib.tile_kernel_select(self._k, config.encode(), ctypes.byref(out))
            if rc != _OK:
                raise ConfigError(self.name, self._lt.message())
            sel = self._selections[config] = out.value
        return sel

    def choose(self, *args, **kwargs):
        """The configuration (a dict, as in `configs`) a launch with these
        arguments would run; autotunes first when libtile has not yet seen
        this tuning key (the kernel is then launched several times, its
        outputs restored afterwards)."""
        config = None
        if kwargs:
            args, config = self._split_keywords(args, kwargs)
        if len(args) != len(self.params):
            self._wrong_count(args)
        packed, stream = self._prepare(args)
        sel = self._selection(config) if config else 0
        out = ctypes.c_int(-1)
        rc = self._lt.lib.tile_kernel_choose(self._k, sel, None, packed, len(args), stream,
                                             ctypes.byref(out))
        if rc != _OK:
            self._fail(rc, None)
        return self.configs[out.value]

    def _run(self, grid, args, config):
        packed, stream = self._prepare(args)
        if config is not None:
            rc = self._launch_select_c(self._k, self._selection(config),
                                       None if grid is None else struct.pack("=III", *grid),
                                       packed, len(args), stream, None)
        elif grid is None:
            rc = self._launch_c(self._k, packed, len(args), stream)
        else:
            rc = self._launch_grid_c(self._k, struct.pack("=III", *grid), packed,
                                     len(args), stream)
        if rc != _OK:
            self._fail(rc, grid)

    def _prepare(self, args):
        """(packed TileLaunchArg array, stream) of checked arguments."""
        vals = self._template.copy()
        dev = None
        for i, (check, is_ptr, a) in enumerate(zip(self._checkers, self._pointer, args)):
            if is_ptr:
                v, d = check(a)
                if d is not None:
                    if dev is None:
                        dev = d
                    elif d != dev:
                        raise ArgumentError(self.name, f"is on device {d}, but an earlier "
                                            f"argument is on device {dev}", i,
                                            self.params[i].name)
            else:
                v = check(a)
            vals[2 * i + 1] = v
        return self._pack(*vals), (None if dev is None else self._late_stream(dev))

    def _fail(self, rc, grid):
        msg = self._lt.message()
        if rc in (_NO_DRIVER, _DRIVER_TOO_OLD, _NO_DEVICE):
            raise GPUUnavailableError(f"GPU runtime not available: {msg}")
        if rc == _ARGUMENT:
            raise ArgumentError(self.name, msg, whole=True)
        if rc == _NO_CONFIG:
            raise ConfigError(self.name, msg)
        if grid is None and "no grid(...)" in msg:
            msg += " (from Python: k[grid](...))"
        raise LaunchError(self.name, msg)
