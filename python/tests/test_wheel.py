"""The wheel of `make wheel` (python/make_wheel.py), made here from this
build's own binaries so that nothing heavy is built: its layout and
metadata, the check that reads it back, the manylinux tag read from the
binaries, and the package installed from it (unpacked as pip does) finding
its libraries, tilec and the stdlib inside itself with no environment set.
The portable wheel itself (a static-LLVM build) is made by `make wheel`
and tried on the GPU machine by scripts/gpu-wheel.sh."""

import math
import os
import re
import shutil
import stat
import subprocess
import sys
import zipfile

import pytest

from conftest import SRCDIR

pytest.importorskip("tomllib")  # make_wheel.py reads pyproject.toml with it (Python 3.11)
sys.path.insert(0, os.path.join(SRCDIR, "python"))
import make_wheel  # noqa: E402

BUILD = os.getcwd()  # python/run-tests runs in the build tree
TILE_VARS = ("TILE_LIBDIR", "TILEC", "TILE_STDLIB", "TILE_PATH", "PYTHONPATH", "TILE_INTERPRET")


def _built():
    if not all(os.path.exists(os.path.join(BUILD, rel)) for rel in make_wheel.BINARIES.values()):
        pytest.skip("tilec, libtilec and libtile are not built here")
    if not shutil.which("objdump") or not shutil.which("strip"):
        pytest.skip("binutils (objdump, strip) missing")


def _libdevice():
    """The libdevice this build was configured with (config.h), or a skip."""
    with open(os.path.join(BUILD, "config.h")) as f:
        m = re.search(r'#define TILE_LIBDEVICE "([^"]+)"', f.read())
    if not m or not os.path.exists(m.group(1)):
        pytest.skip("no CUDA toolkit libdevice configured")
    return m.group(1)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """A wheel of this build (tagged linux_x86_64: the tree's tilec links
    the shared LLVM), and where it is unpacked as an installation."""
    _built()
    out = tmp_path_factory.mktemp("dist")
    path = make_wheel.build(BUILD, SRCDIR, str(out), _libdevice(), plat="linux_x86_64")
    site = out / "site"
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            dest = zf.extract(info, site)
            if info.external_attr >> 16 & 0o111:      # pip keeps the executable bits
                os.chmod(dest, os.stat(dest).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path, site


def _installed(site, code, *args):
    """Runs Python `code` with only the unpacked wheel on its path and none
    of Tile's variables set, outside the source tree."""
    env = {k: v for k, v in os.environ.items() if k not in TILE_VARS}
    env["PYTHONPATH"] = str(site)
    env["TILE_CACHE_DIR"] = str(site.parent / "cache")
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, cwd=str(site.parent))


def test_layout_and_metadata(wheel):
    path, _site = wheel
    assert re.fullmatch(r"tile-0\.1\.0-py3-none-linux_x86_64\.whl", os.path.basename(path))
    with zipfile.ZipFile(path) as zf:
        names = set(zf.namelist())
        meta = zf.read("tile-0.1.0.dist-info/METADATA").decode()
        entry = zf.read("tile-0.1.0.dist-info/entry_points.txt").decode()
    for need in ["tile/__init__.py", "tile/profile.py", "tile/__main__.py", "tile/bin/tilec",
                 "tile/lib/libtilec.so", "tile/lib/libtile.so",
                 "tile/share/tile/stdlib/std/math.tile", "tile/share/tile/stdlib/std/grid.tile",
                 "tile/share/tile/libdevice.10.bc"]:
        assert need in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert "Name: tile\nVersion: 0.1.0\n" in meta
    assert "tile = tile.__main__:main" in entry and "tilec = tile.__main__:tilec" in entry
    assert make_wheel.check(path) == []


def _copy(path, dest, change=None, drop=None):
    """A copy of the wheel at `path` written to `dest`, with one member's
    bytes changed or one member left out."""
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(dest, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == change:
                data += b"// changed\n"
            if info.filename != drop:
                dst.writestr(info, data)
    return str(dest)


def test_check_finds_a_damaged_wheel(wheel, tmp_path):
    path, _site = wheel
    name = os.path.basename(path)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    std = "tile/share/tile/stdlib/std/math.tile"
    assert make_wheel.check(_copy(path, tmp_path / "a" / name, drop="tile/bin/tilec")) == \
        ["tile/bin/tilec missing"]
    assert make_wheel.check(_copy(path, tmp_path / "b" / name, change=std)) == \
        [f"{std}: its hash or size is not RECORD's"]
    retagged = _copy(path, tmp_path / "tile-0.1.0-py3-none-manylinux_2_17_x86_64.whl")
    problems = make_wheel.check(retagged)
    assert problems[0] == "WHEEL's tag is not the file name's py3-none-manylinux_2_17_x86_64"
    assert len(problems) == 2 and problems[1].startswith("tagged manylinux_2_17_x86_64")


def test_platform_tag_from_the_binaries():
    _built()
    libtile = os.path.join(BUILD, make_wheel.BINARIES["tile/lib/libtile.so"])
    libs, glibc, _other = make_wheel.needs(libtile)
    assert "libc.so.6" in libs
    syms = subprocess.run(["readelf", "--dyn-syms", "-W", libtile], capture_output=True,
                          text=True).stdout
    want = max(int(m) for m in re.findall(r"@GLIBC_2\.(\d+)", syms))
    assert glibc == want
    foreign = [lib for lib in libs if lib not in make_wheel.ALLOWED]
    if foreign:                  # a sanitizer build's libasan, say
        with pytest.raises(ValueError, match=re.escape(foreign[0])):
            make_wheel.platform_tag([libtile])
    else:
        assert make_wheel.platform_tag([libtile]) == f"manylinux_2_{want}_x86_64"
    tilec = os.path.join(BUILD, "tilec")
    llvm = [lib for lib in make_wheel.needs(tilec)[0] if "LLVM" in lib]
    if llvm:                     # a shared-LLVM build: no manylinux wheel of it
        with pytest.raises(ValueError, match=re.escape(llvm[0])):
            make_wheel.platform_tag([libtile, tilec])


def test_installed_package_uses_its_own_files(wheel):
    _path, site = wheel
    r = _installed(site, "import sys, tile.__main__ as m; sys.exit(m.main(['info']))")
    assert r.returncode == 0, r.stderr
    pkg = os.path.join(str(site), "tile")
    lines = dict(line.strip().split(":", 1) for line in r.stdout.splitlines()[1:])
    assert lines["libtilec"].strip() == os.path.join(pkg, "lib", "libtilec.so")
    assert lines["libtile"].strip() == os.path.join(pkg, "lib", "libtile.so")
    assert lines["tilec"].strip() == os.path.join(pkg, "bin", "tilec")
    assert lines["stdlib"].strip() == os.path.join(pkg, "share", "tile", "stdlib")


def test_installed_package_compiles_and_interprets(wheel):
    """bias_gelu imports std/math: the wheel's libtilec finds the wheel's
    stdlib (interpreter), and so does its tilec (PTX)."""
    _path, site = wheel
    code = """
import array, sys, tile
mod = tile.compile(sys.argv[1], interpret=True)
n = 1000
x = array.array("f", [(i - 500) / 100 for i in range(n)])
out = array.array("f", bytes(4 * n))
mod.bias_gelu(out, x, 2.0, 0.5, n)
print(" ".join(repr(v) for v in out))
"""
    r = _installed(site, code, os.path.join(SRCDIR, "examples", "bias_gelu.tile"))
    assert r.returncode == 0, r.stderr
    got = [float(v) for v in r.stdout.split()]
    for i, v in enumerate(got):
        z = (i - 500) / 100 * 2.0 + 0.5
        assert abs(v - z * 0.5 * (1 + math.erf(z / math.sqrt(2)))) <= 1e-5 * max(1, abs(z))
    tilec = os.path.join(str(site), "tile", "bin", "tilec")
    env = {k: v for k, v in os.environ.items() if k not in TILE_VARS}
    ptx = subprocess.run([tilec, "--emit=ptx", os.path.join(SRCDIR, "examples", "bias_gelu.tile")],
                         capture_output=True, text=True, env=env, cwd=str(site.parent))
    assert ptx.returncode == 0, ptx.stderr
    assert ".entry bias_gelu__c0__" in ptx.stdout


def test_installed_tilec_uses_its_libdevice_and_needs_no_ptxas(wheel, tmp_path):
    """layernorm's rsqrt comes from libdevice: the wheel's tilec links the
    libdevice beside its stdlib (a damaged copy there is what it reports);
    with no ptxas that runs, it still writes a bundle (PTX only)."""
    _path, site = wheel
    tilec = os.path.join(str(site), "tile", "bin", "tilec")
    src = os.path.join(SRCDIR, "examples", "layernorm.tile")
    env = {k: v for k, v in os.environ.items() if k not in TILE_VARS + ("TILE_LIBDEVICE",)}
    env["TILE_PTXAS"] = str(tmp_path / "no-ptxas")
    out = tmp_path / "ln.tlb"
    r = subprocess.run([tilec, "-o", str(out), src], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and out.stat().st_size > 0, r.stderr
    ours = os.path.join(str(site), "tile", "share", "tile", "libdevice.10.bc")
    damaged = tmp_path / "site2"
    shutil.copytree(site, damaged, symlinks=True)
    bc = damaged / "tile" / "share" / "tile" / "libdevice.10.bc"
    bc.write_bytes(b"not bitcode")
    r = subprocess.run([str(damaged / "tile" / "bin" / "tilec"), "--emit=ptx", src],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 1 and "libdevice" in r.stderr and "site2" in r.stderr, r.stderr
    assert os.path.exists(ours)
