"""make_wheel — the `tile` package as a wheel that carries its compiler,
runtime and stdlib (`make wheel`), and the check of such a wheel.

    python3 python/make_wheel.py build BUILD SRCDIR OUTDIR LIBDEVICE [--plat TAG]
    python3 python/make_wheel.py check WHEEL

`build` takes tilec, libtilec and libtile from the build tree BUILD (for a
wheel that runs anywhere: configured with --enable-static-llvm, as `make
wheel` does in build-wheel/) and the Python files and the stdlib from the
source tree SRCDIR, libdevice (the CUDA toolkit's bitcode of the math
functions, which the wheel carries as Triton's does) from the path
LIBDEVICE, and writes OUTDIR/tile-VERSION-py3-none-PLAT.whl:

    tile/*.py                     the package (python/tile)
    tile/bin/tilec                the compiler, stripped
    tile/lib/libtilec.so          the interpreter library (ctypes)
    tile/lib/libtile.so           the CUDA runtime (ctypes)
    tile/share/tile/stdlib/std/   the standard library
    tile/share/tile/libdevice.10.bc
    tile-VERSION.dist-info/       METADATA, WHEEL, entry_points.txt (the
                                  `tile` and `tilec` commands), RECORD

This is the layout of an installation prefix, so tilec and libtilec find
the stdlib beside themselves (sema/stdlib_dir.c: DIR/../share/tile/stdlib),
tilec finds libdevice beside the stdlib (driver/compile.c), and tile._libs
finds the libraries and tilec in the package, with no environment set.
Where the toolkit's ptxas is missing, tilec writes bundles with PTX only,
which the driver compiles at load. The package is pure Python over ctypes, hence py3-none.

The platform tag is the honest one: manylinux_2_N_x86_64, N the highest
GLIBC_2.N symbol version any of the binaries needs (objdump -T), after
checking that they need no shared library outside the manylinux set
(glibc's own, libgcc_s, zlib) and no libstdc++ (a static LLVM build links it
statically). A binary that fails this stops the build, unless --plat names
the tag (linux_x86_64 is the honest one for a wheel that runs only where it
was built). `check` reads a wheel back: the files every wheel needs, each
file's RECORD hash and size, executable bits, and the tag against what its
binaries need. Name, version and summary come from python/pyproject.toml.
"""

import base64
import csv
import hashlib
import io
import os
import re
import stat
import subprocess
import sys
import tempfile
import tomllib
import zipfile

# Shared libraries a manylinux wheel may need (PEP 600: those every
# glibc-based distribution has); the versions of glibc's and libgcc_s's
# symbols bound the tag.
ALLOWED = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
           "libgcc_s.so.1", "libz.so.1", "ld-linux-x86-64.so.2"}
BINARIES = {"tile/bin/tilec": "tilec", "tile/lib/libtilec.so": ".libs/libtilec.so",
            "tile/lib/libtile.so": "runtime/.libs/libtile.so"}


def project(srcdir):
    """python/pyproject.toml's [project] table."""
    with open(os.path.join(srcdir, "python", "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def needs(path):
    """(the shared libraries `path` needs, the highest GLIBC_2.N's N it needs,
    the symbol version sets beyond glibc's it needs, as 'GCC_3.0')."""
    dyn = subprocess.run(["objdump", "-p", path], capture_output=True, text=True, check=True)
    libs = re.findall(r"^\s*NEEDED\s+(\S+)", dyn.stdout, re.M)
    syms = subprocess.run(["objdump", "-T", path], capture_output=True, text=True, check=True)
    versions = set(re.findall(r"\(?\b((?:GLIBC|GLIBCXX|CXXABI|GCC)_[0-9.]+)\)?\s", syms.stdout))
    glibc = max((int(v.split(".")[1]) for v in versions
                 if v.startswith("GLIBC_2.") and v.count(".") >= 1), default=17)
    return libs, glibc, sorted(v for v in versions if not v.startswith("GLIBC_"))


def platform_tag(paths):
    """manylinux_2_N_x86_64 for these binaries; ValueError naming what
    keeps them from any manylinux tag."""
    worst, problems = 17, []
    for p in paths:
        libs, glibc, other = needs(p)
        worst = max(worst, glibc)
        bad = [lib for lib in libs if lib not in ALLOWED]
        bad += [v for v in other if not v.startswith("GCC_")]
        if bad:
            problems.append(f"{os.path.basename(p)} needs {', '.join(bad)}")
    if problems:
        raise ValueError("not a manylinux binary: " + "; ".join(problems) +
                         " (configure the build with --enable-static-llvm, or pass --plat)")
    return f"manylinux_2_{worst}_x86_64"


def _stripped(path):
    """The bytes of `path` without its symbol table and debug info."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "s")
        subprocess.run(["strip", "--strip-unneeded", "-o", out, path], check=True)
        with open(out, "rb") as f:
            return f.read()


def _digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


LIBDEVICE = "tile/share/tile/libdevice.10.bc"


def contents(build, srcdir, libdevice):
    """[(name in the wheel, bytes, executable)] of the package's files."""
    with open(libdevice, "rb") as f:
        out = [(LIBDEVICE, f.read(), False)]
    pkg = os.path.join(srcdir, "python", "tile")
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py"):
            with open(os.path.join(pkg, name), "rb") as f:
                out.append((f"tile/{name}", f.read(), False))
    for name, rel in BINARIES.items():
        out.append((name, _stripped(os.path.join(build, rel)),
                    name.startswith("tile/bin/")))
    std = os.path.join(srcdir, "stdlib", "std")
    for name in sorted(os.listdir(std)):
        if name.endswith(".tile"):
            with open(os.path.join(std, name), "rb") as f:
                out.append((f"tile/share/tile/stdlib/std/{name}", f.read(), False))
    return out


def metadata(proj, tag):
    """The dist-info files (name -> text) but RECORD."""
    meta = [("Metadata-Version", "2.1"), ("Name", proj["name"]), ("Version", proj["version"]),
            ("Summary", proj.get("description", "")),
            ("Requires-Python", proj.get("requires-python", ">=3"))]
    for extra, reqs in proj.get("optional-dependencies", {}).items():
        meta.append(("Provides-Extra", extra))
        meta += [("Requires-Dist", f'{r}; extra == "{extra}"') for r in reqs]
    # The wheel carries tilec: a `tilec` command runs it (tile.__main__).
    scripts = dict(proj.get("scripts", {}), tilec="tile.__main__:tilec")
    return {
        "METADATA": "".join(f"{k}: {v}\n" for k, v in meta),
        "WHEEL": ("Wheel-Version: 1.0\nGenerator: tile make_wheel.py\n"
                  f"Root-Is-Purelib: false\nTag: py3-none-{tag}\n"),
        "entry_points.txt": "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in scripts.items()),
        "top_level.txt": "tile\n",
    }


def _add(zf, name, data, executable=False):
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
    zf.writestr(info, data)


def build(build_dir, srcdir, outdir, libdevice, plat=None):
    """Writes the wheel; returns its path."""
    proj = project(srcdir)
    files = contents(build_dir, srcdir, libdevice)
    if plat is None:
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name, data, _x in files:
                if name in BINARIES:
                    paths.append(os.path.join(d, os.path.basename(name)))
                    with open(paths[-1], "wb") as f:
                        f.write(data)
            plat = platform_tag(paths)
    dist = f"{proj['name']}-{proj['version']}.dist-info"
    files += [(f"{dist}/{k}", v.encode(), False) for k, v in metadata(proj, plat).items()]
    record = io.StringIO()
    w = csv.writer(record, lineterminator="\n")
    for name, data, _x in files:
        w.writerow([name, _digest(data), len(data)])
    w.writerow([f"{dist}/RECORD", "", ""])
    os.makedirs(outdir, exist_ok=True)
    path = os.path.join(outdir, f"{proj['name']}-{proj['version']}-py3-none-{plat}.whl")
    with zipfile.ZipFile(path + ".tmp", "w") as zf:
        for name, data, x in files:
            _add(zf, name, data, x)
        _add(zf, f"{dist}/RECORD", record.getvalue().encode())
    os.replace(path + ".tmp", path)
    return path


def check(path):
    """The problems of the wheel at `path` (an empty list: none)."""
    m = re.match(r"([A-Za-z0-9_]+)-([0-9.]+)-py3-none-([a-z0-9_]+)\.whl$", os.path.basename(path))
    if not m:
        return [f"{path}: not a wheel name (NAME-VERSION-py3-none-PLAT.whl)"]
    name, version, plat = m.groups()
    dist = f"{name}-{version}.dist-info"
    problems = []
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        for need in ["tile/__init__.py", "tile/_libs.py", "tile/share/tile/stdlib/std/math.tile", LIBDEVICE,
                     f"{dist}/METADATA", f"{dist}/WHEEL", f"{dist}/RECORD", *BINARIES]:
            if need not in names:
                problems.append(f"{need} missing")
        if problems:
            return problems
        wheel = zf.read(f"{dist}/WHEEL").decode()
        if f"Tag: py3-none-{plat}\n" not in wheel:
            problems.append(f"WHEEL's tag is not the file name's py3-none-{plat}")
        meta = zf.read(f"{dist}/METADATA").decode()
        if f"Name: {name}\n" not in meta or f"Version: {version}\n" not in meta:
            problems.append("METADATA's name or version is not the file name's")
        problems += _check_record(zf, names, f"{dist}/RECORD")
        if zf.getinfo("tile/bin/tilec").external_attr >> 16 & 0o111 != 0o111:
            problems.append("tile/bin/tilec is not executable")
        if plat.startswith("manylinux_"):
            problems += _check_tag(zf, plat)
    return problems


def _check_record(zf, names, record):
    problems, listed = [], set()
    for row in csv.reader(io.StringIO(zf.read(record).decode())):
        listed.add(row[0])
        if row[0] == record:
            continue
        if row[0] not in names:
            problems.append(f"RECORD lists {row[0]}, which is not in the wheel")
            continue
        data = zf.read(row[0])
        if row[1] != _digest(data) or row[2] != str(len(data)):
            problems.append(f"{row[0]}: its hash or size is not RECORD's")
    problems += [f"{n} is not in RECORD" for n in sorted(names - listed)]
    return problems


def _check_tag(zf, plat):
    with tempfile.TemporaryDirectory() as d:
        paths = [zf.extract(n, d) for n in BINARIES]
        try:
            want = platform_tag(paths)
        except ValueError as e:
            return [f"tagged {plat}: {e}"]
    return [] if want == plat else [f"tagged {plat} but its binaries need {want}"]


def main(argv):
    if len(argv) >= 6 and argv[1] == "build":
        plat = argv[argv.index("--plat") + 1] if "--plat" in argv else None
        try:
            path = build(argv[2], argv[3], argv[4], argv[5], plat)
        except (ValueError, OSError, subprocess.CalledProcessError) as e:
            sys.exit(f"make_wheel: {e}")
        print(f"{path}: {os.path.getsize(path) / 2**20:.1f} MiB")
        argv = [argv[0], "check", path]
    if len(argv) == 3 and argv[1] == "check":
        problems = check(argv[2])
        for p in problems:
            print(f"{argv[2]}: {p}", file=sys.stderr)
        print(f"{argv[2]}: {'ok' if not problems else f'{len(problems)} problems'}")
        return 1 if problems else 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
