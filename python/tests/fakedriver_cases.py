"""Launches through libtile on the driver test double, with stand-in torch
tensors (standin_torch): what k(*args) and k[grid](*args) hand libtile --
the grid, torch's current stream, the arguments in order -- and the
checks they make first. The double (tests/unit/fakecuda.so,
FAKE_CUDA_WORKING=1) "runs" a launch by adding 1 to out[0] in host
memory and records the grid and stream; it has two devices, a current
context per thread and counts per device (module loads, launches).

libtile loads its driver once per process, so these run in a process of
their own: test_gpu.py's test_fake_driver_launches runs pytest over this
file with TILE_LIBCUDA and FAKE_CUDA_WORKING set (it is not collected
otherwise: its name does not start with test_).
"""
import ctypes
import os

import pytest

import standin_torch

torch = standin_torch.install(devices=1)

import tile  # noqa: E402
from tile import gpu  # noqa: E402

FAKE = ctypes.CDLL(os.environ["TILE_LIBCUDA"])     # the double libtile loads
BUNDLE = os.environ["TILE_TEST_BUNDLE"]
N = 3000                                           # vadd's grid: cdiv(N, 1024) = 3


def last_launch():
    """(launches so far, grid of the last, its stream handle)."""
    grid, stream = (ctypes.c_uint * 3)(), ctypes.c_void_p()
    FAKE.fake_cuda_last_launch(grid, ctypes.byref(stream))
    return FAKE.fake_cuda_launches(), tuple(grid), stream.value or 0


class Buffers:
    """out, x, y: N floats of host memory each, as stand-in CUDA tensors
    of the torch module `t`."""

    def __init__(self, t, device=0):
        self.mem = [(ctypes.c_float * N)() for _ in range(3)]
        self.out, self.x, self.y = (t.Tensor(ctypes.addressof(m), device=device)
                                    for m in self.mem)

    def args(self):
        return self.out, self.x, self.y, N

    def runs(self):
        """Launches seen so far: the double adds 1 to out[0] per launch."""
        return self.mem[0][0]


@pytest.fixture(scope="module", autouse=True)
def driver():
    assert gpu.available(), gpu.unavailable_reason()


def vadd(devices=1):
    """vadd of a freshly loaded bundle, its launchers made while the
    stand-in torch sees `devices` devices; (kernel, torch)."""
    t = standin_torch.install(devices)
    return tile.load(BUNDLE).vadd, t


def test_call_takes_the_kernels_grid_and_torchs_stream():
    k, t = vadd()
    b = Buffers(t)
    before = last_launch()[0]
    k(*b.args())
    assert last_launch() == (before + 1, (3, 1, 1), 0) and b.runs() == 1
    t.state.streams[0] = 0x5000                    # with torch.cuda.stream(s): ...
    k(*b.args())
    assert last_launch()[1:] == ((3, 1, 1), 0x5000)
    t.state.streams[0] = 0x6000
    k(b.out, b.x, b.y, n=N)                        # the general path: same stream
    assert last_launch()[1:] == ((3, 1, 1), 0x6000) and b.runs() == 3


@pytest.mark.parametrize("grid, dims", [(7, (7, 1, 1)), ((7,), (7, 1, 1)),
                                        ((3, 2), (3, 2, 1)), ((3, 2, 4), (3, 2, 4)),
                                        ([2, 2], (2, 2, 1))])
def test_explicit_grid(grid, dims):
    k, t = vadd()
    b = Buffers(t)
    t.state.streams[0] = 0x7000
    k[grid](*b.args())
    assert last_launch()[1:] == (dims, 0x7000) and b.runs() == 1
    k[grid](b.out, b.x, y=b.y, n=N)                # keywords: the general path
    k[grid](*b.args(), BLOCK=1024)                 # a configuration keyword
    assert last_launch()[1:] == (dims, 0x7000) and b.runs() == 3


def test_explicit_grid_launchers_are_kept():
    k, t = vadd()
    assert k[5] is k[5] and k[(4, 2)] is k[(4, 2)] and k[5] is not k[(5,)]
    assert k[[5]] is not k[[5]]                    # a list is not kept (unhashable)
    b = Buffers(t)
    for g in range(1, 301):                        # more grids than are kept
        k[g](*b.args())
        assert last_launch()[1] == (g, 1, 1)
    assert len(k._grids) <= gpu._GRIDS_KEPT and b.runs() == 300


def test_zero_grid_runs_nothing():
    k, t = vadd()
    b = Buffers(t)
    before = last_launch()[0]
    k[0](*b.args())
    k[(2, 0)](*b.args())
    assert last_launch()[0] == before and b.runs() == 0
    with pytest.raises(tile.ArgumentError, match="takes 4 arguments"):
        k[0](b.out)


@pytest.mark.parametrize("grid", [5.0, (5.0,), (2, 1.0), True, (True,), (1, 2, 3, 4), -1,
                                  (2**32,), "5", (5, None)])
def test_bad_grids(grid):
    k, _ = vadd()
    k[5], k[(5,)], k[(2, 1)], k[1], k[(1,)]        # equal ints kept first
    with pytest.raises(tile.ArgumentError, match="kernel 'vadd': .*grid"):
        k[grid]


@pytest.mark.parametrize("form", ["call", "grid"])
def test_argument_checks(form):
    """Every check is made on both launchers, naming the argument."""
    k, t = vadd()
    launch = k if form == "call" else k[(3,)]
    b = Buffers(t)
    d64 = t.Tensor(b.x.data_ptr(), dtype=t.float64)
    cases = [((b.out, d64, b.y, N), r"argument 1 \('x'\) has element type f64 \(a torch "
              r"tensor of torch.float64 on cuda:0\), but the kernel takes \*f32"),
             ((b.out, b.x, t.Tensor(b.y.data_ptr(), contiguous=False), N),
              r"argument 2 \('y'\) is not contiguous"),
             ((t.Tensor(b.out.data_ptr(), device=None), b.x, b.y, N),
              r"argument 0 \('out'\) is a torch tensor of torch.float32 on cpu"),
             ((b.out, b.x, b.y, 2**31), r"argument 3 \('n'\) is 2147483648, which does not fit"),
             ((b.out, b.x, b.y, 3.0), r"argument 3 \('n'\) must be an integer \(i32\), got float"),
             ((b.out, b.x, b.y), r"takes 4 arguments \(out, x, y, n\), got 3"),
             ((b.out, b.x, b.y, N, N), r"takes 4 arguments \(out, x, y, n\), got 5"),
             # libtile's own check sees x's pointer in x's place:
             ((b.out, t.Tensor(b.x.data_ptr() + 2), b.y, N),
              r"argument 1 \('x', \*f32\) is 0x[0-9a-f]+, not aligned to its 4-byte elements")]
    for args, message in cases:
        with pytest.raises(tile.ArgumentError, match="kernel 'vadd': " + message):
            launch(*args)
    with pytest.raises(tile.ConfigError, match="no configuration BLOCK=512"):
        launch(*b.args(), BLOCK=512)
    assert b.runs() == 0
    launch(b.out, b.x, b.y, True)                  # a bool is an integer 1
    launch(b.out, b.x, b.y, N)
    assert b.runs() == 2


@pytest.mark.parametrize("form", ["call", "grid"])
def test_devices(form):
    """With two devices each tensor's device is asked for: they must agree
    and be the current device; the stream is that device's."""
    k, t = vadd(devices=2)
    launch = k if form == "call" else k[(3,)]
    b0, b1 = Buffers(t, device=0), Buffers(t, device=1)
    with pytest.raises(tile.ArgumentError, match=r"argument 1 \('x'\) is on device 1, "
                       "but an earlier argument is on device 0"):
        launch(b0.out, b1.x, b0.y, N)
    with pytest.raises(tile.ArgumentError, match=r"the tensors are on cuda:1 but the "
                       r"current device is cuda:0"):
        launch(*b1.args())
    t.state.device, t.state.streams[1] = 1, 0x1100
    launch(*b1.args())
    assert last_launch()[1:] == ((3, 1, 1), 0x1100) and b1.runs() == 1 and b0.runs() == 0


def device_stats(dev):
    """The double's counts for device dev: (primary-context retains, module
    loads, module unloads, launches)."""
    out = (ctypes.c_int * 4)()
    FAKE.fake_cuda_device_stats(dev, out)
    return tuple(out)


def set_device(t, dev):
    """torch.cuda.set_device(dev) on the stand-in: torch's current device,
    and (cudaSetDevice) the device's primary context current in the driver."""
    t.state.device = dev
    assert FAKE.fake_cuda_set_device(dev) == 0


def test_launches_run_in_the_current_devices_context():
    """A rank bound to cuda:1 (torch.cuda.set_device(LOCAL_RANK)) loads the
    bundle's module on device 1 and launches there, leaving device 0
    alone; bound to cuda:0 again, its launches go there."""
    k, t = vadd(devices=2)
    b0, b1 = Buffers(t, device=0), Buffers(t, device=1)
    try:
        set_device(t, 1)
        zero, one = device_stats(0), device_stats(1)
        k(*b1.args())
        k[(3,)](*b1.args())
        assert FAKE.fake_cuda_last_device() == 1 and b1.runs() == 2
        assert device_stats(0) == zero
        assert [a - b for a, b in zip(device_stats(1), one)] == [0, 1, 0, 2]
    finally:
        set_device(t, 0)
    k(*b0.args())
    assert FAKE.fake_cuda_last_device() == 0 and b0.runs() == 1
    assert device_stats(0)[3] == zero[3] + 1 and device_stats(1)[3] == one[3] + 2


def test_tensor_subclasses():
    """A subclass (nn.Parameter) takes the general path, with its device
    and torch's stream; torch's __cuda_array_interface__ refuses tensors
    that require grad, so it must not be asked."""
    k, t = vadd()

    class Parameter(t.Tensor):
        __slots__ = ()

        @property
        def __cuda_array_interface__(self):
            raise RuntimeError("Can't get __cuda_array_interface__ on Variable that "
                               "requires grad")
    b = Buffers(t)
    t.state.streams[0] = 0x4000
    x = Parameter(b.x.data_ptr())
    k(b.out, x, b.y, N)
    k[(3,)](b.out, x, b.y, N)
    assert last_launch()[1:] == ((3, 1, 1), 0x4000) and b.runs() == 2
    with pytest.raises(tile.ArgumentError, match=r"argument 1 \('x'\) has element type f64"):
        k(b.out, Parameter(b.x.data_ptr(), dtype=t.float64), b.y, N)


def test_cuda_array_interface_arguments_go_to_the_default_stream():
    k, t = vadd()
    t.state.streams[0] = 0x5000
    mem = [(ctypes.c_float * N)() for _ in range(3)]

    class CudaArray:
        def __init__(self, m):
            self.__cuda_array_interface__ = {"shape": (N,), "typestr": "<f4", "version": 3,
                                             "data": (ctypes.addressof(m), False)}
    k(*(CudaArray(m) for m in mem), N)
    k[(2,)](*(CudaArray(m) for m in mem), N)
    assert last_launch()[1:] == ((2, 1, 1), 0) and mem[0][0] == 2
