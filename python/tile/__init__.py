"""tile — Tile kernels from Python.

    import tile
    mod = tile.compile("softmax.tile", interpret=True)
    mod.softmax(out, x, rows, cols, stride)          # grid from grid(...)
    mod.softmax[rows](out, x, rows, cols, stride)    # explicit grid
    mod.softmax(out, x, rows, cols, stride, BLOCK=1024, warps=4)

With interpret=True (or TILE_INTERPRET=1 in the environment) kernels run in
the reference interpreter of libtilec on host buffers (numpy arrays, torch
CPU tensors, any buffer-protocol object). Without it they run on the GPU
through libtile; see docs/python.md for what that needs.
"""

import os

from . import _log
from . import interp as _interp
from ._types import type_name as _type_name
from .errors import (ArgumentError, BundleError, CompileError, ConfigError, GPUUnavailableError,
                     LaunchError, LibraryNotFoundError, TileError, TileWarning)

__all__ = ["compile", "load", "TileError", "BundleError", "CompileError", "ArgumentError",
           "ConfigError", "LaunchError", "LibraryNotFoundError", "GPUUnavailableError",
           "TileWarning"]
__version__ = "0.1.0"
_log.setup()


def _env_flag(name):
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def _env_interpret():
    return _env_flag("TILE_INTERPRET")


def _define_items(defines):
    """(name, text) pairs of a defines dict; types may be given as numpy or
    torch dtypes, bools as True/False."""
    out = []
    for k, v in (defines or {}).items():
        if v is True or v is False:
            text = "true" if v else "false"
        elif isinstance(v, (int, float, str)):
            text = str(v)
        else:
            text = _type_name(v)
            if text is None:
                raise TypeError(f"define {k}: not a value or type: {v!r}")
        out.append((k, text))
    return out


def compile(path, defines=None, include_dirs=(), arch=None, interpret=None, debug=None):
    """Compiles the Tile source file `path` into a module whose attributes are
    its kernels.

    defines: {"NAME": value} as tilec -D (ints, bools, or types: "f16",
    numpy.float16, torch.float16). include_dirs: as tilec -I. arch: the GPU
    target ("sm_90"), used in GPU mode; by default the current device's
    (tile.gpu.default_arch: sm_90a on an H100 or H200, which enables
    warpgroup MMA). interpret: run in the interpreter
    (default: $TILE_INTERPRET). debug: keep device_assert and emit line
    info (tilec -g; default: $TILE_DEBUG, which `tile profile` sets).
    Raises CompileError with the compiler's diagnostics."""
    path = os.fspath(path)
    if interpret is None:
        interpret = _env_interpret()
    if debug is None:
        debug = _env_flag("TILE_DEBUG")
    if interpret:
        mod = _interp.compile_file(path, _define_items(defines), include_dirs, debug)
    else:
        from . import gpu
        mod = gpu.compile_file(path, _define_items(defines), include_dirs, arch, debug)
    # What made the module, so that tile.torch can build the other mode's
    # twin of a kernel (the interpreter for CPU tensors, the GPU for CUDA).
    mod._options = {"defines": dict(defines or {}), "include_dirs": tuple(include_dirs),
                    "arch": arch, "debug": debug}
    mod._rebuild = _rebuilder(path, mod._options, interpret)
    return mod


def _rebuilder(path, options, interpret):
    """rebuild(config): the module compiled again with the launch keywords
    `config` added to its defines (they take precedence), made once per set
    of values (kernel.Kernel._select); GPU mode also caches the bundle on
    disk, as any compile."""
    made = {}

    def rebuild(config):
        defines = dict(options["defines"], **config)
        key = tuple(sorted(_define_items(defines)))
        mod = made.get(key)
        if mod is None:
            mod = made[key] = compile(path, defines, options["include_dirs"],
                                      options["arch"], interpret, options["debug"])
        return mod
    return rebuild


def load(path, interpret=None):
    """Loads a bundle written by `tilec -o x.tlb` for the GPU."""
    path = os.fspath(path)
    if interpret is None:
        interpret = _env_interpret()
    if interpret:
        raise TileError(f"{path}: a bundle holds GPU code; the interpreter runs "
                        f"source: use tile.compile(\"k.tile\", interpret=True)")
    from . import gpu
    return gpu.load_bundle(path)
