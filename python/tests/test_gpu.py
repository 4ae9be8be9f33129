"""GPU mode. Without a GPU: loading a real bundle (the runtime tests'
hand-written vadd, written by python/tests/write_vadd_bundle), its
kernels and signatures, the argument checks made before any launch, and
clear refusals (GPUUnavailableError) where the driver or tilec's bundle
output is missing. With torch, CUDA and libtile: launches on tensors."""

import os
import re
import struct
import subprocess
import sys

import numpy as np
import pytest

import tile
from tile import gpu
from tile._types import Param

WRITER = os.environ.get("TILE_TEST_BUNDLE_WRITER")


@pytest.fixture
def vadd_bundle(tmp_path):
    if not WRITER or not os.path.exists(WRITER):
        pytest.skip("python/tests/write_vadd_bundle not built (run through make check)")
    path = str(tmp_path / "vadd.tlb")
    subprocess.run([WRITER, path], check=True)
    return path


class CudaArray:
    """A minimal __cuda_array_interface__ producer, standing for CuPy or
    Numba arrays in argument checks (its memory is never touched: no
    launch reaches a device without a driver)."""

    def __init__(self, n, typestr="<f4", ptr=0x7f0000000000, strides=None, readonly=False):
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": typestr,
                                         "data": (ptr, readonly), "strides": strides,
                                         "version": 3}


def test_load_bundle(vadd_bundle):
    mod = tile.load(vadd_bundle)
    assert not mod.interpret and mod.kernels == ["vadd"]
    assert [(p.name, p.type, p.pointer, p.stored) for p in mod.vadd.params] == [
        ("out", "f32", True, True), ("x", "f32", True, False), ("y", "f32", True, False),
        ("n", "i32", False, False)]
    assert mod.vadd.configs == [{"BLOCK": "1024", "warps": "4", "stages": "3"}]
    assert mod.vadd.has_grid
    assert "vadd(out: *f32, x: *f32, y: *f32, n: i32)" in repr(mod.vadd)
    with pytest.raises(AttributeError, match="no kernel 'nope'"):
        mod.nope


def test_bad_bundles(tmp_path):
    with pytest.raises(tile.BundleError, match="absent.tlb"):
        tile.load(str(tmp_path / "absent.tlb"))
    junk = tmp_path / "junk.tlb"
    junk.write_bytes(b"not a bundle at all" * 4)
    with pytest.raises(tile.BundleError):
        tile.load(str(junk))


def test_gpu_argument_checks(vadd_bundle):
    k = tile.load(vadd_bundle).vadd
    a = CudaArray(16)
    with pytest.raises(tile.ArgumentError, match=r"argument 1 \('x'\) is host memory.*"
                       r"GPU mode needs device memory"):
        k(a, np.zeros(16, np.float32), a, 16)
    with pytest.raises(tile.ArgumentError, match=r"argument 2 \('y'\) has element type f64"):
        k(a, a, CudaArray(16, "<f8"), 16)
    with pytest.raises(tile.ArgumentError, match=r"'y'\) is not contiguous"):
        k(a, a, CudaArray(16, strides=(8,)), 16)
    with pytest.raises(tile.ArgumentError, match=r"'n'\) is 4294967296, which does not fit"):
        k(a, a, a, 2**32)
    with pytest.raises(tile.ArgumentError, match=r"argument 0 \('out'\) is read-only"):
        k(CudaArray(16, readonly=True), a, a, 16)
    # A loaded bundle cannot be recompiled: the error names the kernel, the
    # keyword, the value asked for and the values built.
    for launch in (lambda: k(a, a, a, 16, BLOCK=512),
                   lambda: k.choose(a, a, a, 16, BLOCK=512, warps=4),
                   lambda: k[1](a, a, a, 16, BLOCK=512)):
        with pytest.raises(tile.ConfigError, match=r"kernel 'vadd': no configuration "
                           r"BLOCK=512(,warps=4)? was built; available: "
                           r"BLOCK=1024,warps=4,stages=3 \(BLOCK=512 was asked for, but "
                           r"only BLOCK=1024 was built\)\. The module was loaded from the "
                           r"bundle .*vadd.*, which cannot be recompiled"):
            launch()
    with pytest.raises(tile.ConfigError, match=r"\(warps=8 was asked for, but only warps=4 "
                       r"was built\)"):
        k(a, a, a, 16, BLOCK=1024, warps=8)
    # One configuration: choosing needs no driver.
    assert k.choose(a, a, a, 16) == {"BLOCK": "1024", "warps": "4", "stages": "3"}
    assert k.choose(a, a, a, 16, BLOCK=1024, warps=4)["BLOCK"] == "1024"


@pytest.mark.skipif(gpu.available(), reason="a GPU driver is present")
def test_launch_without_driver_is_refused(vadd_bundle):
    k = tile.load(vadd_bundle).vadd
    a = CudaArray(16)
    with pytest.raises(tile.GPUUnavailableError, match="GPU runtime not available"):
        k(a, a, a, 16)
    with pytest.raises(tile.GPUUnavailableError, match="GPU runtime not available"):
        k(a, a, a, 16, BLOCK=1024)       # a selection, then the launch


def test_config_keywords_select(example, tmp_path, monkeypatch):
    """Configuration keywords narrow libtile's candidates: with one left,
    choose() answers without a driver; @require still applies."""
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path / "cache"))
    k = _compile_or_skip(example("softmax")).softmax
    assert len(k.configs) == 21 and k.has_grid
    assert [p.stored for p in k.params] == [True, False, False, False, False]
    a = CudaArray(4096)
    assert k.choose(a, a, 4, 300, 300, BLOCK=512, warps=8) == \
        {"BLOCK": "512", "warps": "8", "stages": "3"}
    with pytest.raises(tile.ConfigError, match=r"no configuration matching 'BLOCK=256' has "
                       r"its @require hold for these arguments \(rows=4, cols=300, "
                       r"stride=300; 3 of 21 configurations selected\): "
                       r"BLOCK=256,warps=4,stages=3 and 2 more need 256 >= cols"):
        k.choose(a, a, 4, 300, 300, BLOCK=256)
    if not gpu.available():
        with pytest.raises(tile.GPUUnavailableError):
            k.choose(a, a, 4, 300, 300)    # several candidates: tuning needs the GPU
    # A value never built: the source is compiled again with it (cached:
    # a second compile of the same defines reads the bundle back).
    assert k.choose(a, a, 4, 300, 300, BLOCK=8192, warps=2, stages=1) == \
        {"BLOCK": "8192", "warps": "2", "stages": "1"}
    assert len(os.listdir(tmp_path / "cache")) == 2
    mod2 = tile.compile(example("softmax"), defines={"BLOCK": 8192, "warps": 2, "stages": 1})
    assert mod2.softmax.configs == [{"BLOCK": "8192", "warps": "2", "stages": "1"}]
    assert len(os.listdir(tmp_path / "cache")) == 2


def test_compile_for_gpu(example, tmp_path, monkeypatch):
    """tile.compile without interpret runs tilec --emit=bundle through the
    cache; a tilec that cannot write bundles yet is a clear refusal."""
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path / "cache"))
    try:
        probe = subprocess.run([os.environ.get("TILEC", "tilec"), "--emit=bundle", "-o",
                                os.devnull, example("vadd")], capture_output=True, text=True)
    except FileNotFoundError:
        pytest.skip("no tilec here (the GPU machine: bundles are built where LLVM is)")
    if probe.returncode != 0:
        with pytest.raises(tile.GPUUnavailableError, match="cannot write bundles"):
            tile.compile(example("vadd"))
        assert os.listdir(tmp_path / "cache") == []   # nothing half-written left
        return
    mod = tile.compile(example("vadd"))
    assert mod.kernels == ["vadd"] and not mod.interpret and mod.path == example("vadd")
    cached = os.listdir(tmp_path / "cache")
    assert len(cached) == 1 and cached[0].endswith(".tlb")
    assert mod.bundle_path == str(tmp_path / "cache" / cached[0])
    stamp = os.stat(mod.bundle_path).st_mtime_ns
    again = tile.compile(example("vadd"))
    assert again.bundle_path == mod.bundle_path                # served from the cache
    assert os.stat(mod.bundle_path).st_mtime_ns == stamp
    tile.compile(example("vadd"), defines={"BLOCK": 256})
    assert len(os.listdir(tmp_path / "cache")) == 2           # another key
    mod = tile.compile(example("bias_gelu"), defines={"T": np.float16}, arch="sm_80")
    assert [p.type for p in mod.bias_gelu.params] == ["f16", "f16", "f32", "f32", "i32"]
    assert len(os.listdir(tmp_path / "cache")) == 3


def test_compile_for_gpu_logs(example, tmp_path, monkeypatch, caplog):
    """The "tile" logger tells a compile by tilec from a cache hit, the
    bundle loaded, and the configuration choose() returns."""
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path))
    caplog.set_level("INFO", logger="tile")
    k = _compile_or_skip(example("softmax")).softmax
    first = caplog.text
    assert re.search(r"compiled .*softmax.tile with \S*tilec \(--arch=\w+\) in [0-9.]+ s: "
                     + re.escape(str(tmp_path)), first) or \
        re.search(r"compiled .*softmax.tile with \S*tilec \(no options\) in ", first)
    assert "cache hit" not in first and "loaded bundle " + str(tmp_path) in first
    caplog.clear()
    _compile_or_skip(example("softmax"))
    assert "cache hit for " + example("softmax") in caplog.text
    assert "compiled" not in caplog.text
    a = CudaArray(4096)
    k.choose(a, a, 4, 300, 300, BLOCK=512, warps=8)
    assert "kernel softmax: configuration BLOCK=512,warps=8,stages=3 chosen" in caplog.text


def test_compile_for_gpu_imports_are_part_of_the_key(source, tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path / "cache"))
    helper = tmp_path / "helpers.tile"
    helper.write_text("fn twice(x) { return x * 2.0; }\n")
    path = source('import "helpers";\n'
                  "kernel k(out: *f32) grid(1) { store(out + arange(0, 16), "
                  "twice(arange(0, 16) as f32)); }\n")
    first = _compile_or_skip(path).bundle_path
    assert tile.compile(path).bundle_path == first
    helper.write_text("fn twice(x) { return x + x; }\n")
    assert tile.compile(path).bundle_path != first


def test_compile_for_gpu_tile_path_imports_are_part_of_the_key(source, tmp_path, monkeypatch):
    """A module found through $TILE_PATH is in the key too: the key comes
    from tilec's own list of the files it read (--emit=deps), so editing
    it never serves the stale bundle."""
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path / "cache"))
    lib = tmp_path / "lib"
    lib.mkdir()
    monkeypatch.setenv("TILE_PATH", str(lib))
    (lib / "far.tile").write_text("fn thrice(x) { return x * 3.0; }\n")
    path = source('import "far";\n'
                  "kernel k(out: *f32) grid(1) { store(out + arange(0, 16), "
                  "thrice(arange(0, 16) as f32)); }\n")
    first = _compile_or_skip(path).bundle_path
    assert tile.compile(path).bundle_path == first
    (lib / "far.tile").write_text("fn thrice(x) { return x + x + x; }\n")
    assert tile.compile(path).bundle_path != first


def test_compile_for_gpu_diagnostics(source, tmp_path, monkeypatch):
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path / "cache"))
    path = source("kernel k() { let x = ; }\n", "bad.tile")
    try:
        tile.compile(path)
    except tile.CompileError as e:
        assert "bad.tile:1:22: error: expected expression" in e.diagnostics
        assert "                     ^" in e.diagnostics
    except tile.GPUUnavailableError as e:
        pytest.skip(str(e))
    else:
        pytest.fail("no CompileError")
    cache = tmp_path / "cache"                   # (the key's --emit=deps fails first)
    assert not cache.exists() or os.listdir(cache) == []   # no partial files


def _compile_or_skip(path):
    """tile.compile(path), or a skip where no tilec can build the bundle
    (the GPU machine has no LLVM unless a static tilec is carried)."""
    try:
        return tile.compile(path)
    except tile.GPUUnavailableError as e:
        pytest.skip(str(e))


def _cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    if not gpu.available():
        pytest.skip("GPU runtime not available: " + gpu.unavailable_reason())
    return torch


def test_gpu_vadd_bundle(vadd_bundle):
    torch = _cuda()
    k = tile.load(vadd_bundle).vadd
    for n in (1000, 4096, 100003):
        x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
        out = torch.empty_like(x)
        k(out, x, y, n)
        torch.cuda.synchronize()
        assert torch.equal(out, x + y)
    with pytest.raises(tile.ArgumentError, match="torch.float64"):
        k(out, x.double(), y, n)
    with pytest.raises(tile.ArgumentError, match="is on cpu|host"):
        k(out, x.cpu(), y, n)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):        # launches go to torch's current stream
        k(out, y, y, n)
    s.synchronize()
    assert torch.equal(out, y + y)
    blocks = (n + 1023) // 1024
    out.zero_()
    k[(blocks - 1,)](out, x, y, n)    # an explicit grid: all but the last block
    k[blocks - 1](out, x, y, n)       # the same grid, kept
    torch.cuda.synchronize()
    done = (blocks - 1) * 1024
    assert torch.equal(out[:done], (x + y)[:done]) and not out[done:].any()
    w = torch.nn.Parameter(x.clone())  # a subclass that requires grad
    k[blocks](out, w, y, n)
    torch.cuda.synchronize()
    assert torch.equal(out, x + y)


def test_gpu_compiled_examples(example):
    torch = _cuda()
    mod = _compile_or_skip(example("softmax"))
    x = torch.randn(64, 1000, device="cuda")
    out = torch.empty_like(x)
    mod.softmax(out, x, 64, 1000, 1000)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, torch.softmax(x, dim=1))
    chosen = mod.softmax.choose(out, x, 64, 1000, 1000)      # autotuned
    assert int(chosen["BLOCK"]) >= 1000
    out.zero_()
    mod.softmax(out, x, 64, 1000, 1000, BLOCK=2048, warps=4)  # an explicit configuration
    torch.cuda.synchronize()
    torch.testing.assert_close(out, torch.softmax(x, dim=1))


def test_gpu_autotuning_keeps_inputs(source, monkeypatch, tmp_path):
    """A kernel that updates its input in place: tuning it (several
    configurations) must leave exactly one launch's effect."""
    torch = _cuda()
    monkeypatch.setenv("TILE_CACHE_DIR", str(tmp_path / "cache"))
    path = source("@tune(BLOCK = [128, 256, 512, 1024])\n"
                  "kernel inc<BLOCK: i32>(x: *f32, n: i32) grid(cdiv(n, BLOCK)) {\n"
                  "    let i = program_id(0) * BLOCK + arange(0, BLOCK);\n"
                  "    store(x + i, load(x + i, mask=i < n) + 1.0, mask=i < n);\n}\n")
    k = _compile_or_skip(path).inc
    assert [p.stored for p in k.params] == [True, False] and len(k.configs) == 4
    x = torch.arange(100000, device="cuda", dtype=torch.float32)
    k(x, 100000)
    torch.cuda.synchronize()
    assert torch.equal(x, torch.arange(100000, device="cuda", dtype=torch.float32) + 1)


def test_fake_driver_launches(vadd_bundle):
    """fakedriver_cases.py in a process of its own, libtile on the driver
    test double: the grid, stream and arguments k(...) and k[grid](...)
    hand libtile, and their checks."""
    fake = os.environ.get("TILE_TEST_FAKE_CUDA")
    if not fake or not os.path.exists(fake):
        pytest.skip("tests/unit/fakecuda.so not built (run through make check)")
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, TILE_LIBCUDA=fake, FAKE_CUDA_WORKING="1", FAKE_CUDA_DEVICES="2",
               TILE_TEST_BUNDLE=vadd_bundle,
               PYTHONPATH=os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "--rootdir", os.path.dirname(here),
                        os.path.join(here, "fakedriver_cases.py")],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert " passed" in r.stdout


def test_pack_format_takes_u64_values_past_int64():
    """u64 scalars take any value below 2**64 (libtile reads the bits)."""
    params = [Param("p", "f32", True, False), Param("a", "u64", False, False),
              Param("b", "i64", False, False), Param("c", "f16", False, False)]
    fmt = gpu._pack_format(params)
    assert fmt == "=i4xQi4xQi4xqi4xd"
    assert len(struct.pack(fmt, 1, 2**64 - 1, 2, 2**64 - 1, 2, -2**63, 3, 0.5)) == 64


def test_default_arch():
    """The --arch tile.compile picks for the current device: the device's
    own architecture, sm_90a on sm_90 parts; tilec's default elsewhere."""
    assert gpu.default_arch((9, 0)) == "sm_90a"
    assert gpu.default_arch((8, 0)) == "sm_80"
    assert gpu.default_arch((8, 6)) == "sm_86"
    assert gpu.default_arch((8, 9)) == "sm_89"
    assert gpu.default_arch((7, 5)) is None
    assert gpu.default_arch((10, 0)) is None


def test_compile_uses_device_arch(monkeypatch, tmp_path):
    """tile.compile without arch= asks for the device's; with it, for that."""
    seen = []

    class Stop(Exception):
        pass

    def fake_compile_bundle(path, defines, include_dirs, arch, debug, top, stdlib):
        seen.append(arch)
        raise Stop

    class FakeLib:
        build_top = stdlib_dir = None

    monkeypatch.setattr(gpu, "libtile", lambda: FakeLib())
    monkeypatch.setattr(gpu, "_device_arch", lambda: "sm_90a")
    monkeypatch.setattr(gpu._cache, "compile_bundle", fake_compile_bundle)
    src = tmp_path / "k.tile"
    src.write_text("kernel k() { }\n")
    for arch in (None, "sm_80"):
        with pytest.raises(Stop):
            tile.compile(str(src), arch=arch, interpret=False)
    assert seen == ["sm_90a", "sm_80"]
