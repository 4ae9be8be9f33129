"""A cluster of 2 launched by plain cuLaunchKernel (.reqnctapercluster in
the PTX): ranks and DSMEM; odd grids."""
import ctypes, sys, struct
cu = ctypes.CDLL("libcuda.so.1")
def ck(r, what):
    if r != 0:
        s = ctypes.c_char_p(); cu.cuGetErrorString(r, ctypes.byref(s))
        print(f"{what}: error {r} {s.value.decode()}"); return False
    return True
ck(cu.cuInit(0), "init")
dev = ctypes.c_int(); ck(cu.cuDeviceGet(ctypes.byref(dev), 0), "dev")
ctx = ctypes.c_void_p(); ck(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "ctx")
ck(cu.cuCtxSetCurrent(ctx), "cur")
mod = ctypes.c_void_p(); data = open(sys.argv[1], "rb").read()
ck(cu.cuModuleLoadData(ctypes.byref(mod), data), "load")
fn = ctypes.c_void_p(); ck(cu.cuModuleGetFunction(ctypes.byref(fn), mod, b"cl"), "fn")
for grid in (2, 8, 3):
    buf = ctypes.c_uint64(); ck(cu.cuMemAlloc_v2(ctypes.byref(buf), 8 * 16), "alloc")
    ck(cu.cuMemsetD8_v2(buf, 0xff, 8 * 16), "memset")
    arg = ctypes.c_uint64(buf.value); args = (ctypes.c_void_p * 1)(ctypes.addressof(arg))
    ok = ck(cu.cuLaunchKernel(fn, grid, 1, 1, 64, 1, 1, 0, None, args, None), f"launch grid {grid}")
    ok = ck(cu.cuCtxSynchronize(), f"sync grid {grid}") and ok
    host = (ctypes.c_uint32 * 32)()
    cu.cuMemcpyDtoH_v2(host, buf, 8 * 16)
    print(f"grid {grid}: launched {ok}:", [(host[2 * i], host[2 * i + 1]) for i in range(grid)])

# TMA multicast (second cubin, optional): each program of a pair copies
# half a 16 x 64 u16 box into both; both must hold the whole box.
if len(sys.argv) > 2:
    mod2 = ctypes.c_void_p(); ck(cu.cuModuleLoadData(ctypes.byref(mod2), open(sys.argv[2], "rb").read()), "load mc")
    fn2 = ctypes.c_void_p(); ck(cu.cuModuleGetFunction(ctypes.byref(fn2), mod2, b"mc"), "fn mc")
    import random
    src = [random.randrange(65536) for _ in range(16 * 64)]
    hsrc = (ctypes.c_uint16 * (16 * 64))(*src)
    dsrc = ctypes.c_uint64(); ck(cu.cuMemAlloc_v2(ctypes.byref(dsrc), 2048), "alloc src")
    ck(cu.cuMemcpyHtoD_v2(dsrc, hsrc, 2048), "h2d")
    tmap = (ctypes.c_uint8 * 192)()
    off = (-ctypes.addressof(tmap)) % 64
    mp = ctypes.c_void_p(ctypes.addressof(tmap) + off)
    dims = (ctypes.c_uint64 * 2)(64, 16); strides = (ctypes.c_uint64 * 1)(128)
    box = (ctypes.c_uint32 * 2)(64, 8); es = (ctypes.c_uint32 * 2)(1, 1)
    ck(cu.cuTensorMapEncodeTiled(mp, 1, 2, ctypes.c_void_p(dsrc.value), dims, strides, box, es,
                                 0, 0, 0, 0), "encode")
    for grid in (2, 8):
        dout = ctypes.c_uint64(); ck(cu.cuMemAlloc_v2(ctypes.byref(dout), 2048 * grid), "alloc out")
        ck(cu.cuMemsetD8_v2(dout, 0xff, 2048 * grid), "memset")
        o = ctypes.c_uint64(dout.value)
        args = (ctypes.c_void_p * 2)(mp.value, ctypes.addressof(o))
        ok = ck(cu.cuLaunchKernel(fn2, grid, 1, 1, 128, 1, 1, 0, None, args, None), "launch mc")
        ok = ck(cu.cuCtxSynchronize(), "sync mc") and ok
        h = (ctypes.c_uint16 * (1024 * grid))()
        cu.cuMemcpyDtoH_v2(h, dout, 2048 * grid)
        good = [list(h[1024 * i:1024 * (i + 1)]) == src for i in range(grid)]
        print(f"multicast grid {grid}: launched {ok}, programs holding the whole box: {sum(good)} of {grid}")
