"""The binding in interpret mode: the examples run on numpy arrays and
other host buffers and match numpy references; grids, configurations and
keyword arguments select what they say; every misuse is a TileError with
a message naming the kernel and argument; compile and run errors carry the
compiler's located text."""

import array
import math
import os
import re

import numpy as np
import pytest

import tile

rng = np.random.default_rng(1234)


def rand(n, dtype=np.float32):
    return rng.standard_normal(n).astype(dtype)


# ------------------------------------------------------------ the examples

def test_vadd(example):
    mod = tile.compile(example("vadd"), interpret=True)
    n = 3000
    x, y, out = rand(n), rand(n), np.zeros(n, np.float32)
    assert mod.vadd(out, x, y, n) is None
    np.testing.assert_array_equal(out, x + y)


def test_vadd_keyword_arguments(example):
    mod = tile.compile(example("vadd"), interpret=True)
    n = 100
    x, y, out = rand(n), rand(n), np.zeros(n, np.float32)
    mod.vadd(out, x, n=n, y=y)
    np.testing.assert_array_equal(out, x + y)


def test_softmax(example):
    mod = tile.compile(example("softmax"), interpret=True)
    rows, cols, stride = 5, 300, 320
    x = rand(rows * stride).reshape(rows, stride)
    out = np.full((rows, stride), 7.0, np.float32)
    mod.softmax(out, x, rows, cols, stride)
    e = np.exp(x[:, :cols] - x[:, :cols].max(axis=1, keepdims=True))
    np.testing.assert_allclose(out[:, :cols], e / e.sum(axis=1, keepdims=True),
                               rtol=1e-5, atol=1e-7)
    assert (out[:, cols:] == 7.0).all()   # the padding is never touched


def gelu(z):
    erf = np.vectorize(math.erf)
    return 0.5 * z * (1.0 + erf(z / math.sqrt(2.0)))


@pytest.mark.parametrize("t", ["f16", np.float16])
def test_bias_gelu_f16(example, t):
    mod = tile.compile(example("bias_gelu"), defines={"T": t}, interpret=True)
    assert [p.type for p in mod.bias_gelu.params[:2]] == ["f16", "f16"]
    n, a, b = 5000, 1.5, -0.25
    x, out = rand(n, np.float16), np.zeros(n, np.float16)
    mod.bias_gelu(out, x, a, b, n)
    want = gelu(x.astype(np.float64) * a + b).astype(np.float16)
    np.testing.assert_allclose(out.astype(np.float32), want.astype(np.float32),
                               rtol=2e-3, atol=2e-3)


def test_bias_gelu_f32_rejects_f16_arrays(example):
    mod = tile.compile(example("bias_gelu"), interpret=True)
    x, out = rand(8, np.float16), np.zeros(8, np.float16)
    with pytest.raises(tile.ArgumentError, match=r"argument 0 \('out'\).*float16.*\*f32"):
        mod.bias_gelu(out, x, 1.0, 0.0, 8)


def test_layernorm(example):
    mod = tile.compile(example("layernorm"), interpret=True)
    rows, cols, stride, eps = 3, 700, 704, 1e-5
    x, res = rand(rows * stride), rand(rows * stride)
    w, b = rand(cols), rand(cols)
    out, h_out = np.zeros(rows * stride, np.float32), np.zeros(rows * stride, np.float32)
    mean, rstd = np.zeros(rows, np.float32), np.zeros(rows, np.float32)
    mod.add_layernorm(out, h_out, mean, rstd, x, res, w, b, rows, cols, stride, eps)
    h = (x + res).reshape(rows, stride)[:, :cols].astype(np.float64)
    mu = h.mean(axis=1)
    rs = 1.0 / np.sqrt(h.var(axis=1) + eps)
    want = (h - mu[:, None]) * rs[:, None] * w + b
    np.testing.assert_allclose(h_out.reshape(rows, stride)[:, :cols], h, rtol=1e-6)
    np.testing.assert_allclose(mean, mu, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(rstd, rs, rtol=1e-4)
    np.testing.assert_allclose(out.reshape(rows, stride)[:, :cols], want,
                               rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("t", ["f32", "f16"])
def test_cross_entropy(example, t):
    """Loss and gradient of examples/cross_entropy.tile in storage T (f32
    arithmetic) against float64 on the same stored logits: rows longer
    than a block, a stride past the row, an ignored row."""
    mod = tile.compile(example("cross_entropy"), defines={"T": t}, interpret=True)
    dt = np.float16 if t == "f16" else np.float32
    rows, cols, stride, scale = 3, 5000, 5003, 1.0 / 3
    logits = (3 * rand(rows * stride)).astype(dt)
    target = np.array([7, -100, cols - 1], np.int32)
    loss, grad = np.zeros(rows, np.float32), np.full(rows * stride, 9, dt)
    mod.cross_entropy(loss, grad, logits, target, rows, cols, stride, scale)
    x = logits.reshape(rows, stride)[:, :cols].astype(np.float64)
    lse = np.log(np.exp(x - x.max(1, keepdims=True)).sum(1)) + x.max(1)
    onehot = np.zeros_like(x)
    want_loss = np.zeros(rows)
    for r, tr in enumerate(target):
        if tr != -100:
            onehot[r, tr] = 1
            want_loss[r] = lse[r] - x[r, tr]
    want_grad = (np.exp(x - lse[:, None]) - onehot) * scale
    want_grad[1] = 0
    g = grad.reshape(rows, stride)
    tol = 1e-3 if t == "f16" else 1e-6
    np.testing.assert_allclose(loss, want_loss, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(g[:, :cols].astype(np.float64), want_grad, rtol=tol, atol=tol * 1e-3)
    assert (g[:, cols:] == 9).all()          # the stride's gap untouched


def test_dropout_is_deterministic(example):
    mod = tile.compile(example("dropout"), interpret=True)
    n, p = 4000, 0.3
    x = rand(n)
    runs = []
    for seed, block in [(7, 1024), (7, 1024), (7, 2048), (8, 1024)]:
        out = np.zeros(n, np.float32)
        mod.dropout(out, x, p, seed, n, BLOCK=block)
        runs.append(out)
    np.testing.assert_array_equal(runs[0], runs[1])   # same seed, same result
    np.testing.assert_array_equal(runs[0], runs[2])   # in every configuration
    assert not np.array_equal(runs[0], runs[3])       # another seed differs
    kept = runs[0] != 0
    np.testing.assert_allclose(runs[0][kept], x[kept] / (1 - p), rtol=1e-6)
    assert abs(1 - kept.mean() - p) < 0.05


# ------------------------------------------------- grids and configurations

def test_explicit_grid(example):
    mod = tile.compile(example("vadd"), interpret=True)
    n = 3000
    x, y = rand(n), rand(n)
    for grid, done in [(1, 1024), ((2,), 2048), ((2, 1, 1), 2048), (0, 0)]:
        out = np.zeros(n, np.float32)
        mod.vadd[grid](out, x, y, n)
        np.testing.assert_array_equal(out[:done], (x + y)[:done])
        assert (out[done:] == 0).all()


def test_explicit_grid_arguments_and_refusals(example):
    """k[grid](...) takes keywords and checks arguments as k(...) does;
    grids of floats or bools are refused even when equal to good ones."""
    mod = tile.compile(example("vadd"), interpret=True)
    n = 3000
    x, y = rand(n), rand(n)
    out = np.zeros(n, np.float32)
    launch = mod.vadd[(2,)]
    launch(out, x, y=y, n=n)
    np.testing.assert_array_equal(out[:2048], (x + y)[:2048])
    assert (out[2048:] == 0).all()
    with pytest.raises(tile.ArgumentError, match=r"takes 4 arguments \(out, x, y, n\), got 3"):
        launch(out, x, y)
    with pytest.raises(tile.ArgumentError, match=r"argument 1 \('x'\) has element type f64"):
        launch(out, x.astype(np.float64), y, n)
    # BLOCK=512 was not built: the module is compiled again with it.
    out[:] = 0
    launch(out, x, y, n, BLOCK=512)
    np.testing.assert_array_equal(out[:1024], (x + y)[:1024])
    assert (out[1024:] == 0).all()
    for bad in (2.0, (2.0,), True, (2, True), [2, 1.5]):
        with pytest.raises(tile.ArgumentError, match="kernel 'vadd': a grid is an int or a tuple"):
            mod.vadd[bad]


def test_grid_is_needed_without_grid_clause(source):
    mod = tile.compile(source(
        "kernel fill(out: *i32) {\n"
        "    store(out + program_id(0), program_id(0) * 10 + program_id(1));\n"
        "}\n"), interpret=True)
    assert not mod.fill.has_grid
    out = np.zeros(6, np.int32)
    with pytest.raises(tile.ArgumentError, match=r"kernel 'fill': has no grid"):
        mod.fill(out)
    mod.fill[6](out)
    np.testing.assert_array_equal(out, np.arange(6) * 10)
    with pytest.raises(tile.ArgumentError, match="grid"):
        mod.fill[(1, 2, 3, 4)](out)
    with pytest.raises(tile.ArgumentError, match="grid"):
        mod.fill[-1](out)


def test_config_keywords_select_the_configuration(example):
    mod = tile.compile(example("bias_gelu"), interpret=True)
    assert {"BLOCK": "2048", "T": "f32", "warps": "8", "stages": "3"} in mod.bias_gelu.configs
    n = 5000
    x = rand(n)
    for block in (1024, 2048, 4096):
        out = np.zeros(n, np.float32)
        mod.bias_gelu[1](out, x, 1.0, 0.0, n, BLOCK=block, warps=8)
        assert (out[:block] != 0).all() and (out[block:] == 0).all()


def test_launch_keyword_outside_the_built_configurations_recompiles(source, caplog):
    """A launch keyword has the highest precedence: a value no configuration
    was built with (a compile-time parameter, warps, stages) compiles the
    module again with it as a define, once per set of keywords; values that
    were built select among the configurations without compiling."""
    path = source(
        "@tune(BH = [2, 4], warps = [4, 8])\n"
        "kernel fill<BH: i32>(out: *i32) grid(1) {\n"
        "    store(out + arange(0, BH), arange(0, BH) + BH * 100);\n"
        "}\n")
    mod = tile.compile(path, defines={"warps": 4}, interpret=True)
    assert [c["BH"] for c in mod.fill.configs] == ["2", "4"]
    assert {c["warps"] for c in mod.fill.configs} == {"4"}

    def run(**config):
        out = np.zeros(8, np.int32)
        mod.fill(out, **config)
        return out.tolist()
    caplog.set_level("INFO", logger="tile")
    assert run(BH=4) == [400, 401, 402, 403, 0, 0, 0, 0]
    assert "compiling" not in caplog.text
    assert run(BH=1) == [100, 0, 0, 0, 0, 0, 0, 0]
    assert run(BH=8) == [800 + i for i in range(8)]
    assert caplog.text.count("compiling") == 2
    assert "no configuration BH=1 was built; compiling" in caplog.text
    assert run(BH=1) == [100, 0, 0, 0, 0, 0, 0, 0]     # kept: no third compile
    assert caplog.text.count("compiling") == 2
    # warps=8 was restricted away by the define; the launch brings it back.
    assert run(BH=2, warps=8) == [200, 201, 0, 0, 0, 0, 0, 0]
    assert caplog.text.count("compiling") == 3
    # Another kernel object of the same module shares the compile.
    rebuilt = mod._rebuild({"BH": 1})
    assert rebuilt.fill.configs == [{"BH": "1", "warps": "4", "stages": "3"}]
    assert caplog.text.count("compiling") == 3


def test_defines_set_warps_and_stages(source):
    """defines={"warps": N, "stages": N} fix them as tilec -D does, over
    @tune and @stages, a value outside the @tune list included."""
    path = source(
        "@tune(B = [2, 4], warps = [4, 8])\n"
        "@stages(2)\n"
        "kernel k<B: i32>(out: *i32) grid(1) { store(out, B); }\n")
    k = tile.compile(path, defines={"warps": 16, "stages": 5}, interpret=True).k
    assert k.configs == [{"B": "2", "warps": "16", "stages": "5"},
                         {"B": "4", "warps": "16", "stages": "5"}]
    assert len(tile.compile(path, defines={"warps": 8}, interpret=True).k.configs) == 2
    with pytest.raises(tile.CompileError, match=r"invalid value '6' in -D warps=6: warps "
                       r"must be a power of two from 1 to 32"):
        tile.compile(path, defines={"warps": 6}, interpret=True)
    with pytest.raises(tile.CompileError, match=r"invalid value '0' in -D stages=0"):
        tile.compile(path, defines={"stages": 0}, interpret=True)


def test_config_errors(example):
    mod = tile.compile(example("softmax"), interpret=True)
    x, out = rand(600), np.zeros(600, np.float32)
    with pytest.raises(tile.ConfigError, match="'BLOK' is neither a parameter"):
        mod.softmax(out, x, 2, 300, 300, BLOK=512)
    # A value never built is compiled as a define: BLOCK=333 (a tile of any
    # size) runs; BLOCK=0 is no tile.
    mod.softmax(out, x, 2, 300, 300, BLOCK=333)
    rows = x.reshape(2, 300).astype(np.float64)
    want = np.exp(rows - rows.max(1, keepdims=True))
    np.testing.assert_allclose(out.reshape(2, 300), want / want.sum(1, keepdims=True),
                               rtol=1e-5)
    with pytest.raises(tile.CompileError, match=r"arange\(0, 0\)"):
        mod.softmax(out, x, 2, 300, 300, BLOCK=0)
    # BLOCK=256 exists but its @require (BLOCK >= cols) fails for 300 columns.
    with pytest.raises(tile.LaunchError, match=r"no configuration matching 'BLOCK=256' has its "
                       r"@require hold for these arguments \(rows=2, cols=300, stride=300; "
                       r"3 of 21 configurations selected\): BLOCK=256,warps=4,stages=3 and "
                       r"2 more need 256 >= cols"):
        mod.softmax(out, x, 2, 300, 300, BLOCK=256)
    mod.softmax(out, x, 2, 300, 300, BLOCK=512, warps=16)


# -------------------------------------------------------- argument checking

def test_dtype_mismatch(example):
    mod = tile.compile(example("vadd"), interpret=True)
    x, out = rand(10), np.zeros(10, np.float32)
    with pytest.raises(tile.ArgumentError) as e:
        mod.vadd(out, x.astype(np.float64), x, 10)
    assert e.value.kernel == "vadd" and e.value.index == 1 and e.value.name == "x"
    assert "float64" in str(e.value) and "*f32" in str(e.value)
    assert isinstance(e.value, TypeError) and isinstance(e.value, tile.TileError)
    with pytest.raises(tile.ArgumentError, match=r"argument 2 \('y'\).*int32"):
        mod.vadd(out, x, np.zeros(10, np.int32), 10)


def test_scalar_checks(example):
    mod = tile.compile(example("vadd"), interpret=True)
    x, out = rand(10), np.zeros(10, np.float32)
    with pytest.raises(tile.ArgumentError, match=r"argument 3 \('n'\) must be an integer"):
        mod.vadd(out, x, x, 10.0)
    with pytest.raises(tile.ArgumentError, match=r"'n'\) is 4294967296, which does not fit in i32"):
        mod.vadd(out, x, x, 2**32)
    with pytest.raises(tile.ArgumentError, match=r"argument 1 \('x'\) must be a buffer"):
        mod.vadd(out, 1.0, x, 10)
    with pytest.raises(tile.ArgumentError, match=r"takes 4 arguments \(out, x, y, n\), got 3"):
        mod.vadd(out, x, x)
    with pytest.raises(tile.ArgumentError, match="'x' given twice"):
        mod.vadd(out, x, x, 10, x=x)
    mod.vadd(out, x, x, np.int64(10))   # numpy integers are integers
    np.testing.assert_array_equal(out, 2 * x)


def test_buffer_checks(example):
    mod = tile.compile(example("vadd"), interpret=True)
    x, out = rand(20), np.zeros(20, np.float32)
    ro = out.copy()
    ro.flags.writeable = False
    with pytest.raises(tile.ArgumentError, match=r"'out'\) is read-only.*stores through it"):
        mod.vadd(ro, x, x, 20)
    with pytest.raises(tile.ArgumentError, match=r"'x'\) is not contiguous"):
        mod.vadd(out[:10], x[::2], x[:10], 10)
    mod.vadd(out, ro, ro, 20)   # read-only inputs are fine


def test_buffer_protocol_objects(example):
    mod = tile.compile(example("vadd"), interpret=True)
    xs = [0.5 * i for i in range(50)]
    x = array.array("f", xs)
    y = memoryview(array.array("f", [1.0] * 50).tobytes()).cast("f")   # read-only
    out = bytearray(200)
    with pytest.raises(tile.ArgumentError, match=r"'out'\) has element type u8"):
        mod.vadd(out, x, y, 50)
    out = array.array("f", [0.0] * 50)
    mod.vadd(out, x, y, 50)
    assert list(out) == [v + 1.0 for v in xs]
    with pytest.raises(tile.ArgumentError, match=r"'out'\) is read-only"):
        mod.vadd(y, x, y, 50)


def test_byte_order_and_non_numeric_dtypes(example):
    """Big-endian arrays are refused (not misread as native f32); object,
    string and complex arrays are TypeErrors naming kernel, argument and
    the type wanted, not an unrelated ValueError."""
    mod = tile.compile(example("vadd"), interpret=True)
    x, out = rand(20), np.zeros(20, np.float32)
    big = x.astype(">f4")
    with pytest.raises(TypeError, match=r"kernel 'vadd': argument 1 \('x'\) is in non-native "
                       r"byte order \(a numpy array of >f4\), but the kernel takes \*f32"):
        mod.vadd(out, big, x, 20)
    with pytest.raises(tile.ArgumentError, match=r"'out'\) is in non-native byte order"):
        mod.vadd(out.astype(">f4"), x, x, 20)
    mod.vadd(out, big.astype(big.dtype.newbyteorder("=")), x, 20)   # the suggested fix
    np.testing.assert_array_equal(out, x + x)
    for arr, shown in ((np.zeros(20, dtype=object), "object"),
                       (np.zeros(20, dtype="U3"), "<U3"),
                       (np.zeros(20, dtype=np.complex64), "complex64"),
                       (np.zeros(20, dtype="M8[s]"), r"datetime64\[s\]")):
        with pytest.raises(TypeError, match=r"kernel 'vadd': argument 2 \('y'\) has an element "
                           rf"type no kernel takes \(a numpy array of {shown}\); the kernel "
                           r"takes \*f32"):
            mod.vadd(out, x, arr, 20)
    big_buffer = memoryview(big.tobytes()).cast("B").cast("f")   # native 'f': fine
    assert big_buffer.format == "f"


def test_step_limit(monkeypatch, source):
    """$TILE_INTERP_MAX_STEPS ends an endless kernel with a located error."""
    mod = tile.compile(source(
        "kernel spin(out: *i32, n: i32) grid(1) {\n"
        "    var i = 0;\n"
        "    while i >= 0 { i = (i + n) % 1000; }\n"
        "    store(out, i);\n"
        "}\n"), interpret=True)
    out = np.zeros(1, np.int32)
    monkeypatch.setenv("TILE_INTERP_MAX_STEPS", "10000")
    with pytest.raises(tile.LaunchError, match=r"error: the run exceeded its limit of 10000 "
                       r"steps .*program \(0, 0, 0\)"):
        mod.spin(out, 1)


@pytest.mark.parametrize("how", ["signal", "interrupt_main"])
def test_ctrl_c_interrupts_a_run(monkeypatch, source, how):
    """Ctrl-C (a real SIGINT to the process, or _thread.interrupt_main)
    ends a run of a kernel that would take minutes, promptly. (The step
    limit only keeps a broken build from spinning for minutes.)"""
    import _thread
    import signal
    import threading
    import time
    monkeypatch.setenv("TILE_INTERP_MAX_STEPS", str(400_000_000))
    fire = (lambda: os.kill(os.getpid(), signal.SIGINT)) if how == "signal" \
        else _thread.interrupt_main
    mod = tile.compile(source(
        "kernel slow(out: *i32, n: i32) grid(1) {\n"
        "    var i = 0;\n"
        "    while i < n { i += 1; }\n"
        "    store(out, i);\n"
        "}\n"), interpret=True)
    out = np.zeros(1, np.int32)
    mod.slow(out, 1000)
    assert out[0] == 1000
    timer = threading.Timer(0.3, fire)
    # Python's own SIGINT handler, as in an interactive session: a test
    # harness that starts us in the background has SIGINT ignored.
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        start = time.monotonic()
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            mod.slow(out, 2**31 - 1)
        timer.join()
    finally:
        signal.signal(signal.SIGINT, old)
    assert time.monotonic() - start < 30
    mod.slow(out, 10)   # the module still works
    assert out[0] == 10


def test_bool_and_integer_scalars(source):
    mod = tile.compile(source(
        "kernel pick(out: *i64, flag: bool, a: i64, b: u8) {\n"
        "    if flag { store(out, a); } else { store(out, b as i64); }\n"
        "}\n"), interpret=True)
    out = np.zeros(1, np.int64)
    mod.pick[1](out, True, -2**40, 3)
    assert out[0] == -2**40
    mod.pick[1](out, False, 0, 255)
    assert out[0] == 255
    with pytest.raises(tile.ArgumentError, match=r"'b'\) is 256, which does not fit in u8"):
        mod.pick[1](out, False, 0, 256)
    with pytest.raises(tile.ArgumentError, match=r"'flag'\) must be a bool"):
        mod.pick[1](out, "yes", 0, 0)


# ------------------------------------------------------ errors with locations

def test_out_of_bounds_is_a_located_launch_error(example):
    mod = tile.compile(example("vadd"), interpret=True)
    x, out = rand(100), np.zeros(100, np.float32)
    with pytest.raises(tile.LaunchError) as e:
        mod.vadd(out, x, x[:50].copy(), 100)
    msg = str(e.value)
    assert e.value.kernel == "vadd"
    assert re.search(r"vadd\.tile:\d+:\d+: error: out-of-bounds load of 'y': "
                     r"element 50 of 50, program \(0, 0, 0\)", msg), msg
    assert "load(y + offs, mask=m)" in msg and "^" in msg


def test_compile_error_carries_diagnostics(source):
    path = source("kernel k() { let x = ; }\n", "bad.tile")
    with pytest.raises(tile.CompileError) as e:
        tile.compile(path, interpret=True)
    d = e.value.diagnostics
    assert "bad.tile:1:22: error: expected expression" in d
    assert "kernel k() { let x = ; }\n" in d and "                     ^" in d
    assert d in str(e.value) or d.rstrip() in str(e.value)


def test_compile_error_semantic(source):
    path = source("kernel k(out: *f32) {\n    store(out, nope);\n}\n")
    with pytest.raises(tile.CompileError, match="use of undeclared name 'nope'"):
        tile.compile(path, interpret=True)


def test_missing_file(tmp_path):
    with pytest.raises(tile.CompileError, match="cannot open"):
        tile.compile(str(tmp_path / "absent.tile"), interpret=True)


def test_warnings_are_python_warnings(example):
    with pytest.warns(tile.TileWarning, match="NOPE"):
        tile.compile(example("vadd"), defines={"NOPE": 1}, interpret=True)


def test_defines_and_include_dirs(tmp_path, source):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "helpers.tile").write_text("fn twice(x) { return x * 2; }\n")
    path = source(
        'import "helpers";\n'
        "kernel k<N: i32>(out: *i32) grid(1) {\n"
        "    store(out + arange(0, N), twice(arange(0, N)));\n"
        "}\n")
    mod = tile.compile(path, defines={"N": 8}, include_dirs=[str(inc)], interpret=True)
    out = np.zeros(8, np.int32)
    mod.k(out)
    np.testing.assert_array_equal(out, np.arange(8) * 2)


def test_device_assert_needs_debug(source):
    path = source('kernel k(n: i32) grid(1) { device_assert(n > 0, "n must be positive"); }\n')
    tile.compile(path, interpret=True).k(0)   # dropped without debug
    with pytest.raises(tile.LaunchError, match="n must be positive"):
        tile.compile(path, interpret=True, debug=True).k(0)


# ------------------------------------------------------------------ modules

def test_module_attributes(example):
    mod = tile.compile(example("vadd"), interpret=True)
    assert mod.kernels == ["vadd"] and "vadd" in dir(mod)
    assert mod["vadd"] is mod.vadd
    with pytest.raises(AttributeError, match="no kernel 'nope'"):
        mod.nope
    p = mod.vadd.params
    assert [(q.name, q.type, q.pointer, q.stored) for q in p] == [
        ("out", "f32", True, True), ("x", "f32", True, False),
        ("y", "f32", True, False), ("n", "i32", False, False)]


def test_tile_interpret_environment(monkeypatch, example):
    monkeypatch.setenv("TILE_INTERPRET", "1")
    mod = tile.compile(example("vadd"))
    assert mod.interpret
    out, x = np.zeros(4, np.float32), rand(4)
    mod.vadd(out, x, x, 4)
    np.testing.assert_array_equal(out, 2 * x)
    with pytest.raises(tile.TileError, match="interpreter runs source"):
        tile.load("k.tlb")


def test_torch_cpu_tensors(example):
    torch = pytest.importorskip("torch")
    mod = tile.compile(example("vadd"), interpret=True)
    x = torch.randn(1000)
    out = torch.zeros(1000)
    mod.vadd(out, x, x, 1000)
    assert torch.equal(out, x + x)
    with pytest.raises(tile.ArgumentError, match="torch.float64"):
        mod.vadd(out, x.double(), x, 1000)
    mod16 = tile.compile(example("bias_gelu"), defines={"T": torch.float16}, interpret=True)
    h = torch.randn(64).half()
    o16 = torch.zeros(64, dtype=torch.float16)
    mod16.bias_gelu(o16, h, 1.0, 0.0, 64)
    assert (o16 != 0).any()


def test_tile_verbose_logs_to_stderr(example):
    """TILE_VERBOSE=1 puts the "tile" logger's INFO records on stderr;
    without it nothing is printed."""
    import subprocess
    import sys
    code = f"import tile; tile.compile({example('vadd')!r}, interpret=True)"
    for verbose, want in [("1", True), ("0", False), (None, False)]:
        env = dict(os.environ)
        env.pop("TILE_VERBOSE", None)
        if verbose is not None:
            env["TILE_VERBOSE"] = verbose
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, check=True)
        assert (f"tile: compiled {example('vadd')} for the interpreter" in r.stderr) == want, \
            r.stderr
        assert r.stdout == ""
