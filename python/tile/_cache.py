"""Bundles compiled by tilec, cached on disk by content.

The key is a SHA-256 over everything the bundle depends on: the texts of
the files the compile reads, as tilec itself lists them (`tilec
--emit=deps`: the source, then every import wherever tilec found it —
next to the importer, -I, $TILE_PATH, the stdlib — so the key can never
miss a file tilec would read), the defines, include directories, arch and
-g, $TILE_PATH and the stdlib directory, and the identity of tilec (its
--version text, which names the ptxas it runs, with its size and
modification time and the ptxas's, so a rebuilt compiler or another ptxas
never serves stale bundles). The bundle is stored as <key>.tlb under
$TILE_CACHE_DIR, else $XDG_CACHE_HOME/tile, else ~/.cache/tile; it is
written to a temporary file in that directory and renamed into place, so
a process finding <key>.tlb never reads a partial file. A miss compiles
under an exclusive lock (flock) on <key>.tlb.lock, taken after the
miss and rechecking the cache once held, so processes compiling the same
bundle at once -- the ranks of a torchrun job starting together -- run
tilec once: the others wait and then hit. The lock file is removed by its
holder; a waiter that finds it replaced or gone locks again.

Which ptxas makes the bundles' cubins: $TILE_PTXAS when set; else the one
tilec finds itself (the configured toolkit's, else `ptxas` on PATH: its
--version says which); where tilec finds none, as on a machine with
PyTorch but no CUDA toolkit, a ptxas that a Python package carries:
pip's nvidia-cuda-nvcc (nvidia/cu13/bin, nvidia/cuda_nvcc/bin), then
Triton's (triton/backends/nvidia/bin). Without any, bundles hold PTX only
and the driver compiles them when they load: on one thread, where ptxas
uses every core (a bundle of many configurations takes minutes so).
"""

import contextlib
import fcntl
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import tempfile
import time

from ._libs import package_file
from ._log import log
from .errors import CompileError, GPUUnavailableError

def cache_dir():
    d = os.environ.get("TILE_CACHE_DIR")
    if not d:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        d = os.path.join(base, "tile")
    return d


def find_tilec(build_top):
    """$TILEC, the build tree's tilec, the wheel's, or tilec on PATH."""
    for cand in (os.environ.get("TILEC"),
                 os.path.join(build_top, "tilec") if build_top else None,
                 package_file("bin", "tilec"), shutil.which("tilec")):
        if cand and os.access(cand, os.X_OK):
            return cand
    raise GPUUnavailableError("GPU runtime not available: tilec not found (set TILEC "
                              "or put tilec on PATH)")


# ptxas inside Python packages, by preference: the CUDA compiler's own
# (pip install nvidia-cuda-nvcc; cu13 and older layouts), then Triton's.
_PACKAGED_PTXAS = (("nvidia", ("cu13", "bin", "ptxas")),
                   ("nvidia", ("cuda_nvcc", "bin", "ptxas")),
                   ("triton", ("backends", "nvidia", "bin", "ptxas")))


def packaged_ptxas():
    """The first ptxas a Python package carries (_PACKAGED_PTXAS), or
    None. The packages are located, not imported."""
    for pkg, rel in _PACKAGED_PTXAS:
        try:
            spec = importlib.util.find_spec(pkg)
        except (ImportError, ValueError):
            continue
        for d in (spec.submodule_search_locations or []) if spec else []:
            cand = os.path.join(d, *rel)
            if os.path.isfile(cand) and os.access(cand, os.X_OK):
                return cand
    return None


def version_text(tilec, env):
    out = subprocess.run([tilec, "--version"], capture_output=True, text=True, env=env)
    return (out.stdout + out.stderr).strip()


def tilec_version(tilec, env):
    """tilec's --version text under env, after setting env["TILE_PTXAS"]
    to a packaged ptxas where neither $TILE_PTXAS nor tilec finds one: the
    text then names that ptxas as tilec prints an executable $TILE_PTXAS
    ("ptxas: PATH"), without running tilec a second time."""
    text = version_text(tilec, env)
    if "TILE_PTXAS" not in env and "ptxas: none" in text:
        ptxas = packaged_ptxas()
        if ptxas:
            env["TILE_PTXAS"] = ptxas
            text = re.sub(r"(?m)^ptxas: none.*$", lambda _: "ptxas: " + ptxas, text)
            log.info("tilec has no ptxas of its own: using %s", ptxas)
    return text


def tilec_environment(tilec, env):
    """tilec_version's choice of ptxas made in env; returns tilec's
    identity for the cache key: its --version text under env (naming the
    ptxas), its size and mtime, and the ptxas's."""
    text = tilec_version(tilec, env)
    ident = [text]
    for line in text.splitlines():
        if line.startswith("ptxas: /"):
            ident.append(line[len("ptxas: "):])
    for f in [tilec] + ident[1:]:
        try:
            st = os.stat(f)
            ident.append(f"{st.st_size}|{st.st_mtime_ns}")
        except OSError:
            ident.append("-")
    return "|".join(ident)


def _dependencies(tilec, path, args, env):
    """The files the compile reads, by tilec's own lookup (--emit=deps).
    Raises CompileError with tilec's diagnostics when the source is
    wrong (the compile itself would say the same)."""
    r = subprocess.run([tilec, "--no-color", "--emit=deps"] + args[1:], capture_output=True,
                       text=True, env=env)
    if r.returncode != 0:
        raise CompileError(path, r.stderr)
    return [line for line in r.stdout.splitlines() if line]


def _tilec_args(path, defines, include_dirs, arch, debug):
    args = ["--emit=bundle"]
    if arch:
        args.append(f"--arch={arch}")
    args += [f"-D{k}={v}" for k, v in defines]
    args += [f"-I{d}" for d in include_dirs]
    if debug:
        args.append("-g")
    return args + [path]


@contextlib.contextmanager
def _locked(path):
    """Holds an exclusive flock on the file `path` (made if missing) and
    removes it when done. A waiter whose file was removed or replaced
    while it waited (its inode is no longer at `path`) locks again."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                if os.path.samestat(os.fstat(fd), os.stat(path)):
                    break
            except FileNotFoundError:
                pass
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        os.close(fd)


def _run_tilec(tilec, path, args, env, d, target):
    """Compiles into a temporary file of d renamed to target."""
    t0 = time.perf_counter()
    fd, tmp = tempfile.mkstemp(dir=d, suffix=".tlb.tmp")
    os.close(fd)
    try:
        r = subprocess.run([tilec, "--no-color", "-o", tmp] + args, capture_output=True,
                           text=True, env=env)
        if r.returncode == 2 and "not available" in r.stderr:
            raise GPUUnavailableError("GPU runtime not available: this tilec cannot write "
                                      f"bundles ({r.stderr.strip().splitlines()[0]})")
        if r.returncode != 0:
            raise CompileError(path, r.stderr)
        os.replace(tmp, target)
        tmp = None
        log.info("compiled %s with %s (%s) in %.2f s: %s", path, tilec, " ".join(args[1:-1]) or "no options",
                 time.perf_counter() - t0, target)
    finally:
        if tmp:
            os.unlink(tmp)


def compile_bundle(path, defines, include_dirs, arch, debug, build_top, stdlib_dir):
    """The path of a bundle of `path` compiled with these options: the
    cached one, or a new one from tilec. Raises CompileError with tilec's
    diagnostics."""
    tilec = find_tilec(build_top)
    include_dirs = [os.path.abspath(d) for d in include_dirs]
    args = _tilec_args(os.path.abspath(path), defines, include_dirs, arch, debug)
    stdlib = os.environ.get("TILE_STDLIB") or stdlib_dir
    env = dict(os.environ)
    if stdlib:
        env["TILE_STDLIB"] = stdlib
    h = hashlib.sha256()
    h.update(tilec_environment(tilec, env).encode() + b"\0")
    h.update("\0".join(args).encode() + b"\0")
    h.update((stdlib or "").encode() + b"\0" + os.environ.get("TILE_PATH", "").encode() + b"\0")
    for dep in _dependencies(tilec, path, args, env):
        try:
            with open(dep, "rb") as f:
                h.update(os.path.abspath(dep).encode() + b"\0" + f.read() + b"\0")
        except OSError as e:
            raise CompileError(path, f"error: cannot open '{dep}': {e.strerror}") from None
    d = cache_dir()
    os.makedirs(d, exist_ok=True)
    target = os.path.join(d, h.hexdigest() + ".tlb")
    if not os.path.exists(target):
        with _locked(target + ".lock"):
            if not os.path.exists(target):      # else another process compiled it meanwhile
                _run_tilec(tilec, path, args, env, d, target)
                return target
    log.info("cache hit for %s (%s): %s", path, " ".join(args[1:-1]) or "no options", target)
    return target
