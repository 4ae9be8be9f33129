"""The `tile` command (python -m tile, or `tile` where the package is
installed with its entry points) and the `tilec` command of the wheel.

    tile info                  the version and the files the package uses:
                               libtilec, libtile, tilec (found as tile.compile
                               finds them) and the stdlib tilec reads
    tile profile ...           Nsight Compute's stall samples by .tile source
                               line (tile/profile.py)
    tilec ...                  the compiler the wheel carries (tile/bin/tilec)
"""

import os
import subprocess
import sys


def _found(find):
    """'path' of find() or its error, for `tile info`."""
    try:
        return find()
    except Exception as e:  # noqa: BLE001 (each lookup's own error is the answer)
        return f"not found ({e})"


def info():
    from . import __version__, _cache, _libs
    print(f"tile {__version__} in {os.path.dirname(os.path.abspath(__file__))}")
    libs = {}
    for name in ("tilec", "tile"):
        libs[name] = _found(lambda n=name: _libs.find_and_load(n)[1])
        print(f"  {'lib' + name + ':':10} {libs[name]}")
    top = _libs.tree_root(libs["tile"]) if os.path.isabs(libs["tile"]) else None
    tilec = _found(lambda: _cache.find_tilec(top))
    print(f"  {'tilec:':10} {tilec}")
    if os.path.isabs(tilec):
        deps = subprocess.run([tilec, "--emit=deps", "-"], input='import "std/math";\n',
                              capture_output=True, text=True)
        std = [d for d in deps.stdout.splitlines() if d.endswith("math.tile")]
        print(f"  {'stdlib:':10} {os.path.dirname(os.path.dirname(std[0])) if std else deps.stderr.strip()}")
        env = dict(os.environ)
        ptxas = [ln for ln in _cache.tilec_version(tilec, env).splitlines()
                 if ln.startswith("ptxas: ")]
        print(f"  {'ptxas:':10} {ptxas[0][len('ptxas: '):] if ptxas else 'unknown (an older tilec)'}")
    return 0


def tilec():
    """The `tilec` entry point: runs the wheel's compiler with our arguments."""
    from ._libs import package_file
    path = package_file("bin", "tilec")
    if not os.access(path, os.X_OK):
        sys.exit(f"tilec: this installation of tile carries no compiler ({path})")
    os.execv(path, [path] + sys.argv[1:])


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["profile"]:
        from . import profile
        return profile.main(argv[1:])
    if argv[:1] == ["info"]:
        return info()
    print(__doc__.split("\n\n", 1)[1].rstrip(), file=sys.stderr)
    return 0 if argv[:1] in (["-h"], ["--help"]) else 2


if __name__ == "__main__":
    sys.exit(main())
