"""GPU mode: kernels launched through libtile (runtime/tile.h) from
bundles that `tilec --emit=bundle -o x.tlb` writes.

tile.load opens a bundle; tile.compile runs tilec first (through the
on-disk cache of _cache.py). A kernel's launch path is kept thin: each
kernel gets generated launchers (GPUKernel._make_launchers) -- its
__call__, and one per explicit grid for k[grid], kept per grid -- that
test the common argument forms inline, pack them into a TileLaunchArg
array with one struct.pack and make one ctypes call (ready ctypes values,
no prototype conversions) on torch's current stream (the default stream
when no torch tensor is among the arguments); other forms, keywords and
the errors go to each parameter's checker, made once, and the general
path of kernel.py.
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

from . import _cache, _libs
from ._log import log
from ._device import pointer_checker
from ._scalars import scalar_checker
from ._types import FLOATS, INT_RANGE, Param, torch_dtype
from .errors import (ArgumentError, BundleError, ConfigError, GPUUnavailableError,
                     LaunchError, LibraryNotFoundError)
from .kernel import _MISSING, Kernel, Module as ModuleBase, normalize_grid, parse_configs

# TileStatus values of tile.h.
_OK, _INVALID_VALUE, _IO, _INVALID_BUNDLE, _NOT_FOUND, _ARGUMENT = 0, 1, 2, 3, 4, 5
_NO_CONFIG = 6
_NO_DRIVER, _DRIVER_TOO_OLD, _NO_DEVICE = 8, 9, 10
_PTR, _INT, _FLOAT = 1, 2, 3       # TileLaunchArgKind


class _LaunchValue(ctypes.Union):
    _fields_ = [("ptr", ctypes.c_uint64), ("i", ctypes.c_int64), ("f", ctypes.c_double)]


class TileLaunchArg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("v", _LaunchValue)]


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
    mod = GPUModule(source or path, path, b.value, lt)
    log.info("loaded bundle %s: kernels %s", path, ", ".join(mod.kernels))
    return mod


# tilec's --arch for a GPU of compute capability (major, minor): its own
# architecture, and on sm_90 the "a" one (sm_90a: warpgroup MMA), since a
# bundle tile.compile builds runs on the GPU it was built for, as Triton
# builds for sm_90a on an H100. Other capabilities: tilec's default.
_ARCH_BY_CC = {(8, 0): "sm_80", (8, 6): "sm_86", (8, 9): "sm_89", (9, 0): "sm_90a"}


def default_arch(cc):
    """The --arch tile.compile uses for a device of capability cc (a
    (major, minor) pair) when none is given; None: tilec's default."""
    return _ARCH_BY_CC.get(tuple(cc))


def _device_arch():
    """default_arch of torch's current CUDA device, or None (no torch, no
    device)."""
    try:
        import torch
        if torch.cuda.is_available():
            return default_arch(torch.cuda.get_device_capability())
    except Exception:  # noqa: BLE001 (no usable torch: tilec's default)
        pass
    return None


def compile_file(path, defines, include_dirs, arch, debug):
    lt = libtile()
    if arch is None:
        arch = _device_arch()
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


# The source of a kernel's launchers (GPUKernel._make_launchers): `call`
# becomes the kernel's __call__ (k(*args)), `bind` makes the launcher of
# one explicit grid (k[grid]). Both test the common argument forms inline
# (the per-parameter pieces below), pack the values with one struct.pack
# and make one ctypes call; anything else goes to `general`.
_FILL_POINTER = """\
    if type(a{i}) is Tensor and a{i}.dtype is dtype{i} and a{i}.is_cuda and a{i}.is_contiguous():
        v{i} = a{i}.data_ptr()
        d{i} = {device}
    else:
        v{i}, d{i} = check{i}(a{i})
"""
_FILL_INT = "    v{i} = a{i} if type(a{i}) is int and {lo} <= a{i} < {hi} else check{i}(a{i})\n"
_FILL_FLOAT = "    v{i} = a{i} if type(a{i}) is float else check{i}(a{i})\n"
_FILL_OTHER = "    v{i} = check{i}(a{i})\n"
_STREAM = """\
    if dev is None:
        stream = None
    else:
{current}\
        stream = {stream}
    s = streams.get(stream)
    if s is None:
        s = stream_arg(stream)
"""
_CURRENT = """\
        current = current_device()
        if current != dev:
            wrong_device(dev, current)
"""
_LAUNCHERS = """\
def call(self, {params}/, *more, **kwargs):
    if {other}:
        return general(None, positional({values}, more), kwargs)
{body}\
    rc = launch_c(kernel, pack({packed}), {n}, s)
    if rc:
        fail(rc, None)


def bind(grid, grid_c):
    def launch({params}/, *more, **kwargs):
        if {other}:
            return general(grid, positional({values}, more), kwargs)
{grid_body}\
        rc = launch_grid_c(kernel, grid_c, pack({packed}), {n}, s)
        if rc:
            fail(rc, grid)
    return launch
"""

# Launchers kept per kernel for explicit grids (k[grid]); more distinct
# grids than this start the collection afresh.
_GRIDS_KEPT = 256


def _positional(values, more):
    """The positional arguments of a launcher call: its a0, a1, ... up to
    the last one given (the rest are _MISSING), then the surplus."""
    n = len(values)
    while n and values[n - 1] is _MISSING:
        n -= 1
    return values[:n] + more


def _arg_kind(p):
    return _PTR if p.pointer else _FLOAT if p.type in FLOATS else _INT


def _pack_format(params):
    """struct format of a TileLaunchArg array for `params` (kind, value)."""
    value = {_PTR: "Q", _FLOAT: "d", _INT: "q"}
    return "=" + "".join("i4x" + ("Q" if p.type == "u64" and not p.pointer
                                  else value[_arg_kind(p)]) for p in params)


def _cuda_device_count(torch):
    """How many CUDA devices torch sees; 0 when it cannot tell (a build
    without CUDA, no driver: then no tensor is a CUDA one either)."""
    try:
        return int(torch.cuda.device_count())
    except Exception:  # noqa: BLE001 -- any failure means "cannot tell"
        return 0


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
        self._launch_c = lt.lib.tile_launch
        self._launch_grid_c = lt.lib.tile_launch_grid
        self._launch_select_c = lt.lib.tile_launch_select
        self._selections = {}
        self._stream = _torch_stream()
        # The general path (keywords, choose, argument forms the launchers
        # do not test inline): one checker per parameter.
        self._checkers = [(pointer_checker if p.pointer else scalar_checker)(name, i, p)
                          for i, p in enumerate(params)]
        self._pointer = [p.pointer for p in params]
        self._template = [v for p in params for v in (_arg_kind(p), 0)]
        self._pack = struct.Struct(_pack_format(params)).pack
        # The fast path: ctypes arguments made once (a stream's per handle),
        # launchers per explicit grid.
        self._streams = {None: ctypes.c_void_p()}
        self._grids = {}
        call, self._bind = self._make_launchers()
        if self.has_grid:
            # k(...) calls the generated function directly: a class of its own.
            self.__class__ = type(GPUKernel.__name__, (GPUKernel,),
                                  {"__call__": call, "__slots__": ()})

    def _make_launchers(self):
        """(call, bind): the generated k(*args) and the maker of k[grid]'s
        launchers (see _LAUNCHERS).

        They are generated per kernel (as Triton generates its launchers)
        so that the common cases -- a torch tensor of the right dtype, CUDA
        and contiguous; an int in range; a float -- cost a few inlined tests
        and no lookups; anything else goes to the parameter's checker
        (_device.pointer_checker, _scalars.scalar_checker), which accepts
        the other forms and raises the error messages. Keywords, a wrong
        argument count and (for call) a kernel without grid(...) go the
        general way (Kernel._launch). With one CUDA device, a tensor's
        device needs no query (it is that device, the current one)."""
        torch = sys.modules.get("torch")
        tc = getattr(torch, "_C", None)
        one_device = torch is not None and _cuda_device_count(torch) == 1
        lib = self._lt.lib
        launch_c, launch_grid_c = lib["tile_launch"], lib["tile_launch_grid"]
        launch_c.restype = launch_grid_c.restype = ctypes.c_int   # no argtypes: ready values
        env = {"Tensor": torch.Tensor if torch is not None else _NoTensor,
               "current_device": getattr(tc, "_cuda_getDevice", None),
               "raw_stream": getattr(tc, "_cuda_getCurrentRawStream", None),
               "late_stream": self._late_stream, "wrong_device": self._wrong_device,
               "agree": self._agreeing_device, "streams": self._streams,
               "stream_arg": self._stream_arg, "general": self._launch, "fail": self._fail,
               "positional": _positional, "MISSING": _MISSING,
               "pack": struct.Struct(_pack_format(self.params)).pack,
               "launch_c": launch_c, "launch_grid_c": launch_grid_c,
               "kernel": ctypes.c_void_p(self._k)}
        if env["current_device"] is None:
            env["raw_stream"] = None        # torch.cuda's slower path (_late_stream)
        n = len(self.params)
        names = [f"a{i}" for i in range(n)]
        body, devices, packed = [], [], []
        for i, p in enumerate(self.params):
            packed.append(f"{_arg_kind(p)}, v{i}")
            if p.pointer:
                env[f"check{i}"] = pointer_checker(self.name, i, p)
                env[f"dtype{i}"] = torch_dtype(torch, p.type)
                body.append(_FILL_POINTER.format(i=i, device="0" if one_device
                                            else f"a{i}.get_device()"))
                devices.append(f"d{i}")
                continue
            env[f"check{i}"] = scalar_checker(self.name, i, p)
            if p.type in INT_RANGE:
                lo, hi = INT_RANGE[p.type]
                body.append(_FILL_INT.format(i=i, lo=lo, hi=hi))
            else:
                body.append((_FILL_FLOAT if p.type in FLOATS else _FILL_OTHER).format(i=i))
        if not devices:
            body.append("    s = streams[None]\n")
        else:
            if len(devices) == 1:
                body.append(f"    dev = {devices[0]}\n")
            else:
                body.append(f"    dev = {devices[0]} if {' == '.join(devices)} else "
                            f"agree(({', '.join(devices)}))\n")
            late = env["raw_stream"] is None
            body.append(_STREAM.format(current="" if one_device or late else _CURRENT,
                                       stream="late_stream(dev)" if late else "raw_stream(dev)"))
        body = "".join(body)
        src = _LAUNCHERS.format(
            params="".join(f"{a}=MISSING, " for a in names),
            other="more or kwargs" + (f" or {names[-1]} is MISSING" if n else ""),
            values="(" + "".join(f"{a}, " for a in names) + ")", n=n,
            packed=", ".join(packed), body=body,
            grid_body="".join("    " + line for line in body.splitlines(True)))
        exec(compile(src, f"<tile launchers of {self.name}>", "exec"), env)
        return env["call"], env["bind"]

    def __getitem__(self, grid):
        """k[grid]: the launcher over `grid`, kept per grid of ints."""
        t = type(grid)
        if t is int or t is tuple:
            try:
                launch = self._grids.get(grid)
            except TypeError:           # a tuple holding something unhashable
                launch = None
            if launch is not None:
                # A hit must be ints, not floats or bools equal to them.
                if t is int:
                    return launch
                for d in grid:
                    if type(d) is not int:
                        break
                else:
                    return launch
        g = normalize_grid(self.name, grid)
        if 0 in g:
            return super().__getitem__(g)   # runs nothing; the general path checks the count
        launch = self._bind(g, struct.pack("=III", *g))
        if t is int or t is tuple and all(type(d) is int for d in grid):
            if len(self._grids) >= _GRIDS_KEPT:
                self._grids.clear()
            self._grids[grid] = launch
        return launch

    def _stream_arg(self, stream):
        """The ctypes argument for a stream handle, kept (torch's current
        stream seldom changes; a launch then finds it made)."""
        s = ctypes.c_void_p(stream)
        if len(self._streams) >= 64:
            self._streams.clear()
            self._streams[None] = ctypes.c_void_p()
        self._streams[stream] = s
        return s

    def _agreeing_device(self, devices):
        """The device of the pointer arguments (None when none tells);
        ArgumentError naming the first one on another device."""
        dev = None
        for d, i in zip(devices, (i for i, p in enumerate(self.params) if p.pointer)):
            if d is not None:
                if dev is None:
                    dev = d
                elif d != dev:
                    raise self._device_clash(i, d, dev)
        return dev

    def _device_clash(self, i, d, dev):
        """The error for pointer argument i on device d after one on dev."""
        return ArgumentError(self.name, f"is on device {d}, but an earlier argument is on "
                             f"device {dev}", i, self.params[i].name)

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
            args, target, config = self._split_keywords(args, kwargs)
            if target is not self:
                return target.choose(*args)
        if len(args) != len(self.params):
            self._wrong_count(args)
        packed, stream = self._prepare(args)
        sel = self._selection(config) if config else 0
        out = ctypes.c_int(-1)
        rc = self._lt.lib.tile_kernel_choose(self._k, sel, None, packed, len(args), stream,
                                             ctypes.byref(out))
        if rc != _OK:
            self._fail(rc, None)
        chosen = self.configs[out.value]
        log.info("kernel %s: configuration %s chosen", self.name,
                 ",".join(f"{k}={v}" for k, v in chosen.items()))
        return chosen

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
                        raise self._device_clash(i, d, dev)
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
