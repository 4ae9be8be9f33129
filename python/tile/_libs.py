"""Finding and loading Tile's shared libraries with ctypes.

A library is looked for, in order: in $TILE_LIBDIR (a directory, or several
separated by ':'); in `lib/` inside this package (the wheel of `make wheel`
carries libtilec and libtile there, tilec in `bin/` and the stdlib in
`share/tile/stdlib`: package_file); in the build tree the package sits in
(`<top>/.libs` and `<top>/runtime/.libs`, where libtool puts libtilec and
libtile);
then where the system loader finds it (ctypes.util.find_library, which
reads ldconfig's cache and LD_LIBRARY_PATH). The first that loads wins;
when none does, the error lists every place tried.

The C declarations of tile_interp.h are set up here, once, so that the
callers never build ctypes prototypes on their hot paths.
"""

import ctypes
import ctypes.util
import os

from .errors import LibraryNotFoundError

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
_BUILD_TOP = os.path.dirname(os.path.dirname(_PKG_DIR))  # python/tile -> top


def package_file(*parts):
    """The path of a file the wheel carries inside the package (e.g.
    package_file("bin", "tilec")), whether it is there or not."""
    return os.path.join(_PKG_DIR, *parts)


def _candidates(name):
    """(path, origin) pairs to try for lib<name>.so, in order."""
    so = f"lib{name}.so"
    out = []
    for libdir in filter(None, os.environ.get("TILE_LIBDIR", "").split(os.pathsep)):
        out.append((os.path.join(libdir, so), "TILE_LIBDIR"))
    out.append((package_file("lib", so), "package"))
    for sub in (".libs", os.path.join("runtime", ".libs")):
        out.append((os.path.join(_BUILD_TOP, sub, so), "build tree"))
    return out


def find_and_load(name):
    """Loads lib<name>.so; returns (CDLL, path). Raises LibraryNotFoundError."""
    tried = []
    for path, _origin in _candidates(name):
        if os.path.exists(path):
            try:
                return ctypes.CDLL(path), path
            except OSError as e:
                tried.append(f"{path} ({e})")
        else:
            tried.append(path)
    for soname in filter(None, [ctypes.util.find_library(name), f"lib{name}.so",
                                f"lib{name}.so.0"]):
        try:
            return ctypes.CDLL(soname), soname
        except OSError as e:
            tried.append(f"{soname} ({e})")
    raise LibraryNotFoundError(
        f"cannot load lib{name}: set TILE_LIBDIR to the directory holding "
        f"lib{name}.so (tried: {'; '.join(tried)})")


def tree_root(libpath):
    """The build tree a library was found in (<top>/.libs/lib*.so or
    <top>/runtime/.libs/lib*.so), or None."""
    d = os.path.dirname(os.path.abspath(libpath))
    if os.path.basename(d) == ".libs":
        top = os.path.dirname(d)
        if os.path.basename(top) == "runtime":
            top = os.path.dirname(top)
        if os.path.exists(os.path.join(top, "stdlib")):
            return top
    return None


# ------------------------------------------------------------- libtilec

class CompileOptions(ctypes.Structure):
    _fields_ = [("defines", ctypes.POINTER(ctypes.c_char_p)),
                ("ndefines", ctypes.c_int),
                ("include_dirs", ctypes.POINTER(ctypes.c_char_p)),
                ("ninclude_dirs", ctypes.c_int),
                ("stdlib_dir", ctypes.c_char_p),
                ("debug", ctypes.c_int)]


ARG_BUFFER, ARG_INT, ARG_FLOAT = 0, 1, 2


class Arg(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int),
                ("data", ctypes.c_void_p),
                ("bytes", ctypes.c_size_t),
                ("i", ctypes.c_int64),
                ("f", ctypes.c_double)]


class RunOptions(ctypes.Structure):
    # tile_interp.h's TileRunOptions; cancel is a volatile sig_atomic_t *
    # (an int on the platforms libtilec builds on).
    _fields_ = [("config", ctypes.c_char_p),
                ("grid", ctypes.c_uint * 3),
                ("max_steps", ctypes.c_ulonglong),
                ("cancel", ctypes.POINTER(ctypes.c_int))]


class Tilec:
    """libtilec with its prototypes, and helpers for its malloc'd strings."""

    def __init__(self):
        lib, self.path = find_and_load("tilec")
        self.lib = lib
        P = ctypes.c_void_p
        out_str = ctypes.POINTER(ctypes.c_void_p)
        lib.tile_compile_file.argtypes = [ctypes.c_char_p, ctypes.POINTER(CompileOptions), out_str]
        lib.tile_compile_file.restype = P
        lib.tile_program_free.argtypes = [P]
        lib.tile_program_free.restype = None
        lib.tile_kernel_count.argtypes = [P]
        lib.tile_kernel_count.restype = ctypes.c_int
        lib.tile_kernel_name.argtypes = [P, ctypes.c_int]
        lib.tile_kernel_name.restype = ctypes.c_char_p
        lib.tile_kernel_configs.argtypes = [P, ctypes.c_char_p]
        lib.tile_kernel_configs.restype = P
        try:
            lib.tile_kernel_params.argtypes = [P, ctypes.c_char_p]
            lib.tile_kernel_params.restype = P
            lib.tile_kernel_has_grid.argtypes = [P, ctypes.c_char_p]
            lib.tile_kernel_has_grid.restype = ctypes.c_int
        except AttributeError:
            raise LibraryNotFoundError(
                f"{self.path} is too old: it lacks tile_kernel_params") from None
        lib.tile_interp_run.argtypes = [P, ctypes.c_char_p, ctypes.POINTER(Arg), ctypes.c_int,
                                        ctypes.POINTER(RunOptions), out_str]
        lib.tile_interp_run.restype = ctypes.c_int
        # free() as the process resolves it (an LD_PRELOADed allocator, such
        # as ASan's, comes first), which is the one libtilec's malloc pairs
        # with; libc's own handle would bypass the interposition.
        self._free = ctypes.CDLL(None).free
        self._free.argtypes = [P]
        self._free.restype = None
        root = tree_root(self.path)
        self.stdlib_dir = os.path.join(root, "stdlib") if root else None

    def take_string(self, ptr):
        """The text of a malloc'd char * (None for NULL), freed."""
        if not ptr:
            return None
        try:
            return ctypes.string_at(ptr).decode("utf-8", "replace")
        finally:
            self._free(ptr)


_tilec = None


def tilec():
    """The loaded libtilec (loaded on first use)."""
    global _tilec
    if _tilec is None:
        _tilec = Tilec()
    return _tilec
