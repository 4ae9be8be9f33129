"""Bundles compiled by tilec, cached on disk by content.

The key is a SHA-256 over everything the bundle depends on: the source
text and the texts of the files it imports (found as tilec finds them:
next to the importing file, in the include directories, in the stdlib),
the defines, include directories, arch and -g, and the identity of tilec
(its --version line, size and modification time, so a rebuilt compiler
never serves stale bundles). The bundle is stored as <key>.tlb under
$TILE_CACHE_DIR, else $XDG_CACHE_HOME/tile, else ~/.cache/tile; it is
written to a temporary file in that directory and renamed into place, so
concurrent compilations never see a partial file.
"""

import hashlib
import os
import re
import shutil
import subprocess
import tempfile

from .errors import CompileError, GPUUnavailableError

_IMPORT = re.compile(r'^\s*import\s+"([^"]+)"\s*;', re.M)


def cache_dir():
    d = os.environ.get("TILE_CACHE_DIR")
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "tile")
    return d


def find_tilec(build_top):
    """$TILEC, the build tree's tilec, or tilec on PATH."""
    for cand in (os.environ.get("TILEC"),
                 os.path.join(build_top, "tilec") if build_top else None,
                 shutil.which("tilec")):
        if cand and os.access(cand, os.X_OK):
            return cand
    raise GPUUnavailableError("GPU runtime not available: tilec not found (set TILEC "
                              "or put tilec on PATH)")


def _tilec_identity(tilec):
    out = subprocess.run([tilec, "--version"], capture_output=True, text=True)
    st = os.stat(tilec)
    return f"{(out.stdout + out.stderr).strip()}|{st.st_size}|{st.st_mtime_ns}"


def _hash_sources(h, path, include_dirs, stdlib_dir, seen):
    """Feeds `path` and, recursively, the files it imports into h."""
    path = os.path.abspath(path)
    if path in seen:
        return
    seen.add(path)
    with open(path, "rb") as f:
        text = f.read()
    h.update(path.encode() + b"\0" + text + b"\0")
    for name in _IMPORT.findall(text.decode("utf-8", "replace")):
        rel = name if name.endswith(".tile") else name + ".tile"
        for d in [os.path.dirname(path), *include_dirs, stdlib_dir]:
            cand = os.path.join(d, rel) if d else None
            if cand and os.path.isfile(cand):
                _hash_sources(h, cand, include_dirs, stdlib_dir, seen)
                break


def _tilec_args(path, defines, include_dirs, arch, debug):
    args = ["--emit=bundle"]
    if arch:
        args.append(f"--arch={arch}")
    args += [f"-D{k}={v}" for k, v in defines]
    args += [f"-I{d}" for d in include_dirs]
    if debug:
        args.append("-g")
    return args + [path]


def compile_bundle(path, defines, include_dirs, arch, debug, build_top, stdlib_dir):
    """The path of a bundle of `path` compiled with these options: the
    cached one, or a new one from tilec. Raises CompileError with tilec's
    diagnostics."""
    tilec = find_tilec(build_top)
    include_dirs = [os.path.abspath(d) for d in include_dirs]
    args = _tilec_args(os.path.abspath(path), defines, include_dirs, arch, debug)
    h = hashlib.sha256()
    h.update(_tilec_identity(tilec).encode() + b"\0")
    h.update("\0".join(args).encode() + b"\0")
    stdlib = os.environ.get("TILE_STDLIB") or stdlib_dir
    h.update((stdlib or "").encode() + b"\0")
    try:
        _hash_sources(h, path, include_dirs, stdlib, set())
    except OSError as e:
        raise CompileError(path, f"error: cannot open '{path}': {e.strerror}") from None
    d = cache_dir()
    os.makedirs(d, exist_ok=True)
    target = os.path.join(d, h.hexdigest() + ".tlb")
    if os.path.exists(target):
        return target
    fd, tmp = tempfile.mkstemp(dir=d, suffix=".tlb.tmp")
    os.close(fd)
    try:
        env = dict(os.environ)
        if stdlib:
            env["TILE_STDLIB"] = stdlib
        r = subprocess.run([tilec, "--no-color", "-o", tmp] + args, capture_output=True,
                           text=True, env=env)
        if r.returncode == 2 and "not available" in r.stderr:
            raise GPUUnavailableError("GPU runtime not available: this tilec cannot write "
                                      f"bundles ({r.stderr.strip().splitlines()[0]})")
        if r.returncode != 0:
            raise CompileError(path, r.stderr)
        os.replace(tmp, target)
        tmp = None
    finally:
        if tmp:
            os.unlink(tmp)
    return target
