"""The exceptions of the tile package.

Everything the package raises on purpose is a TileError. Each subclass
carries what the user needs to fix the call: the compiler's diagnostics
text, the kernel and argument that were wrong, or the runtime's message
(which, for a fault inside a kernel, is located: file:line:col, the source
line and a caret).
"""


class TileError(Exception):
    """Base class of every error the tile package raises."""


class LibraryNotFoundError(TileError):
    """libtilec (or libtile) could not be found or loaded."""


class GPUUnavailableError(TileError):
    """GPU mode was asked for but the GPU runtime (libtile) is not usable."""


class BundleError(TileError):
    """A bundle (.tlb) cannot be read: missing, damaged, or not a bundle."""


class CompileError(TileError):
    """The compiler rejected the source; `diagnostics` holds its messages
    (clang style, with source lines and carets), as tilec prints them."""

    def __init__(self, path, diagnostics):
        self.path = path
        self.diagnostics = diagnostics or ""
        super().__init__(f"compiling {path} failed:\n{self.diagnostics.rstrip()}")


class ArgumentError(TileError, TypeError):
    """A launch argument does not fit the kernel's signature (count, kind,
    dtype, device, writability, range). `kernel`, `index` and `name` say
    which argument; `index` and `name` are None when the message is about
    the argument list as a whole."""

    def __init__(self, kernel, message, index=None, name=None, whole=False):
        self.kernel = kernel
        self.index = index
        self.name = name
        if whole:            # the runtime's message, which names the kernel
            text = message
        elif index is None:
            text = f"kernel '{kernel}': {message}"
        else:
            text = f"kernel '{kernel}': argument {index} ('{name}') {message}"
        super().__init__(text)


class ConfigError(TileError, ValueError):
    """Configuration keyword arguments name no compile-time parameter, or
    select no configuration the kernel was built with."""

    def __init__(self, kernel, message):
        self.kernel = kernel
        super().__init__(f"kernel '{kernel}': {message}")


class LaunchError(TileError):
    """A launch or run failed: no configuration satisfies @require, the grid
    could not be evaluated, or the kernel faulted (an out-of-bounds access,
    a failed device_assert). `message` is the runtime's text."""

    def __init__(self, kernel, message):
        self.kernel = kernel
        self.message = message
        super().__init__(message)


class TileWarning(UserWarning):
    """Warnings of the compiler on a source that compiled."""
