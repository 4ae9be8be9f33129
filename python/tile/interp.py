"""interpret=True: kernels run in the reference interpreter (libtilec's
tile_interp_run) on host buffers.

A Module owns one TileProgram (freed with the module). Its kernels are
made on first attribute access: the signature and configurations are
queried once, and one checker per parameter is built, so that a launch
checks each argument with one call, fills a ctypes TileArg array and runs.
Errors of the run (no configuration satisfying @require, the grid, a fault
inside the kernel with its source location, the step limit
$TILE_INTERP_MAX_STEPS) come back as LaunchError.

Ctrl-C. A ctypes call holds the main thread in C, where Python's SIGINT
handler only notes the signal, so a long run could not be interrupted.
Called from the main thread, a run therefore goes to a helper thread
while the main thread waits for it, interruptibly; a KeyboardInterrupt
there sets the run's cancel flag (TileRunOptions.cancel), the run stops
at its next step, and the KeyboardInterrupt is raised once it has (the
buffers stay alive until then). The wait wakes every 50 ms, so Ctrl-C
takes effect within about that. No signal handler is installed or
replaced. From other threads the run is a plain call.
"""

import ctypes
import os
import threading
import time
import warnings

from . import _libs
from ._log import defines_text, log
from ._host import buffer_checker
from ._scalars import scalar_checker
from ._types import parse_signature
from .errors import CompileError, LaunchError, TileWarning
from .kernel import Kernel, Module as ModuleBase, parse_configs


def _c_strings(items):
    arr = (ctypes.c_char_p * max(len(items), 1))()
    for i, s in enumerate(items):
        arr[i] = os.fsencode(s) if not isinstance(s, bytes) else s
    return arr


def compile_file(path, defines, include_dirs, debug):
    """Compiles `path` with libtilec into a Module."""
    lib = _libs.tilec()
    defs = [f"{k}={v}" for k, v in defines]
    incs = [os.fspath(d) for d in include_dirs]
    cdefs, cincs = _c_strings(defs), _c_strings(incs)
    stdlib = None if os.environ.get("TILE_STDLIB") else lib.stdlib_dir
    opt = _libs.CompileOptions(cdefs, len(defs), cincs, len(incs),
                               os.fsencode(stdlib) if stdlib else None, int(bool(debug)))
    diags = ctypes.c_void_p()
    t0 = time.perf_counter()
    prog = lib.lib.tile_compile_file(os.fsencode(path), ctypes.byref(opt), ctypes.byref(diags))
    text = lib.take_string(diags.value)
    if not prog:
        raise CompileError(path, text or "error: compilation failed")
    if text:
        warnings.warn(TileWarning(text.rstrip()), stacklevel=3)
    mod = Module(path, prog, lib)
    log.info("compiled %s%s for the interpreter in %.3f s: kernels %s", path,
             defines_text(defines), time.perf_counter() - t0, ", ".join(mod.kernels))
    return mod


def _run_interruptibly(call, opt):
    """call() (a ctypes call that releases the GIL) with opt.cancel set so
    that Ctrl-C in the main thread stops it; see the module's comment."""
    if threading.current_thread() is not threading.main_thread():
        return call()
    flag = ctypes.c_int(0)
    opt.cancel = ctypes.pointer(flag)
    result, error = [], []

    def target():
        try:
            result.append(call())
        except BaseException as e:   # re-raised in the caller's thread
            error.append(e)
    worker = threading.Thread(target=target, daemon=True, name="tile-interp")
    worker.start()
    interrupted = False
    while worker.is_alive():
        # With a timeout: the SIGINT may be delivered to the worker thread,
        # which would leave an untimed wait asleep; Python runs its
        # handler when this thread comes back to bytecode.
        try:
            worker.join(0.05)
        except KeyboardInterrupt:
            flag.value = 1
            interrupted = True
    if interrupted:
        raise KeyboardInterrupt
    if error:
        raise error[0]
    return result[0]


class Module(ModuleBase):
    """A compiled source file for the interpreter; kernels are attributes
    (mod.vadd) or items (mod["vadd"]); `kernels` lists their names."""

    interpret = True

    def __init__(self, path, prog, lib):
        self._lib = lib
        self._prog = prog
        n = lib.lib.tile_kernel_count(prog)
        super().__init__(path, [lib.lib.tile_kernel_name(prog, i).decode() for i in range(n)])

    def __del__(self):
        prog, self._prog = getattr(self, "_prog", None), None
        if prog:
            self._lib.lib.tile_program_free(prog)

    def __repr__(self):
        return f"<tile module {self.path} (interpreter): {', '.join(self.kernels)}>"

    def _make_kernel(self, name):
        return InterpKernel(self, name)


class InterpKernel(Kernel):
    """A kernel run by the reference interpreter."""

    def __init__(self, module, name):
        lib, prog, cname = module._lib, module._prog, name.encode()
        params = parse_signature(lib.take_string(lib.lib.tile_kernel_params(prog, cname)))
        configs = parse_configs(lib.take_string(lib.lib.tile_kernel_configs(prog, cname)))
        super().__init__(name, params, configs, lib.lib.tile_kernel_has_grid(prog, cname) == 1)
        self._module = module   # keeps the program alive
        self._cname = cname
        self._run_c = lib.lib.tile_interp_run
        self._checkers = [(buffer_checker if p.pointer else scalar_checker)(name, i, p)
                          for i, p in enumerate(params)]
        self._kinds = [_libs.ARG_BUFFER if p.pointer else
                       _libs.ARG_FLOAT if p.type in ("f16", "bf16", "f32", "f64")
                       else _libs.ARG_INT for p in params]
        self._Args = _libs.Arg * max(len(params), 1)

    def _run(self, grid, args, config):
        cargs = self._Args()
        keep = []
        for i, (check, kind, a) in enumerate(zip(self._checkers, self._kinds, args)):
            v = check(a)
            c = cargs[i]
            c.kind = kind
            if kind == _libs.ARG_BUFFER:
                c.data, c.bytes = v.addr, v.nbytes
                keep.append(v)
            elif kind == _libs.ARG_FLOAT:
                c.f = v
            else:
                c.i = v
        opt = _libs.RunOptions(config.encode() if config else None, grid or (0, 0, 0), 0, None)
        err = ctypes.c_void_p()
        rc = _run_interruptibly(lambda: self._run_c(self._module._prog, self._cname, cargs,
                                                    len(args), ctypes.byref(opt),
                                                    ctypes.byref(err)), opt)
        message = self._module._lib.take_string(err.value)
        del keep
        if rc != 0:
            raise LaunchError(self.name, (message or f"kernel '{self.name}' failed").rstrip())
