"""GPU mode: kernels launched through libtile, the CUDA runtime, from
bundles that `tilec -o x.tlb` writes.

libtile (runtime/tile.h) is not part of this tree yet, and tilec cannot
write bundles yet, so GPU mode is not available: every entry point here
raises GPUUnavailableError saying so. Nothing is emulated; use
interpret=True (or TILE_INTERPRET=1) to run kernels on the host.
"""

from .errors import GPUUnavailableError

_WHY = ("this build of Tile has no libtile (the CUDA runtime) and tilec cannot "
        "write bundles yet; run kernels in the interpreter with "
        "tile.compile(..., interpret=True) or TILE_INTERPRET=1")


def available():
    """Can kernels run on the GPU here?"""
    return False


def unavailable_reason():
    return _WHY


def compile_file(path, defines, include_dirs, arch, debug):
    raise GPUUnavailableError("GPU runtime not available: " + _WHY)


def load_bundle(path):
    raise GPUUnavailableError("GPU runtime not available: " + _WHY)
