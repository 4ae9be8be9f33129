"""A stand-in for the part of torch that the `tile` package's GPU launches
use, so that launches on "tensors" can be tested and timed without torch
or a GPU (with libtile on the driver test double, whose device memory is
host memory): install() puts a module named `torch` into sys.modules.

Tensors answer what torch's do for the launch path -- dtype, is_cuda,
is_contiguous(), data_ptr(), get_device(), device -- over a given address
(plain Python, a little slower than torch's C methods). torch._C's
current-device and raw-current-stream queries read `state` (current
device; stream handle per device), and torch.cuda.device_count() is the
`devices` given.
"""
import sys
import types

from tile._types import TORCH


class Dtype:
    """A torch dtype: prints as torch.float32."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


def install(devices=1):
    """A new stand-in torch module, put in sys.modules["torch"] (before
    the kernels that should see it are made)."""
    torch = types.ModuleType("torch")
    for name in TORCH:
        setattr(torch, name, Dtype(name))
    state = torch.state = types.SimpleNamespace(device=0, streams={})
    torch._C = types.SimpleNamespace(
        _cuda_getDevice=lambda: state.device,
        _cuda_getCurrentRawStream=lambda dev: state.streams.get(dev, 0))
    torch.cuda = types.SimpleNamespace(device_count=lambda: devices)

    class Tensor:
        """A tensor at `ptr`: on cuda:`device` (None: the CPU), contiguous
        or not, of `dtype` (default torch.float32)."""
        __slots__ = ("dtype", "is_cuda", "_ptr", "_device", "_contiguous")

        def __init__(self, ptr, dtype=None, device=0, contiguous=True):
            self.dtype = dtype or torch.float32
            self.is_cuda = device is not None
            self._ptr, self._device, self._contiguous = ptr, device, contiguous

        def is_contiguous(self):
            return self._contiguous

        def data_ptr(self):
            return self._ptr

        def get_device(self):
            return -1 if self._device is None else self._device

        @property
        def device(self):
            return "cpu" if self._device is None else f"cuda:{self._device}"

    torch.Tensor = Tensor
    sys.modules["torch"] = torch
    return torch
