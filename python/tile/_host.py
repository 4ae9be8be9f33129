"""Host buffers for the interpreter: numpy arrays, torch CPU tensors and
any object of the buffer protocol, reduced to (address, bytes).

A kernel addresses a pointer argument as one flat run of elements, so a
buffer must be contiguous (C or Fortran order: the elements lie densely;
the kernel does its own indexing). Its element type must be the
parameter's, in this machine's byte order (a numpy '>f4' array is not an
f32 buffer on x86-64: it is refused, as are object, string and complex
arrays), and it must be writable when the kernel stores through it.
Anything else is an ArgumentError (a TypeError) naming the kernel and
argument, never a silent copy: a converted copy would not receive the
kernel's stores.
"""

import ctypes
import sys

from ._types import (TORCH, describe_type, format_swapped, from_format, from_typestr,
                     typestr_itemsize, typestr_swapped)
from .errors import ArgumentError


class _PyBuffer(ctypes.Structure):
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.c_void_p),
                ("len", ctypes.c_ssize_t), ("itemsize", ctypes.c_ssize_t),
                ("readonly", ctypes.c_int), ("ndim", ctypes.c_int),
                ("format", ctypes.c_char_p), ("shape", ctypes.c_void_p),
                ("strides", ctypes.c_void_p), ("suboffsets", ctypes.c_void_p),
                ("internal", ctypes.c_void_p)]


_get_buffer = ctypes.pythonapi.PyObject_GetBuffer
_get_buffer.argtypes = [ctypes.py_object, ctypes.POINTER(_PyBuffer), ctypes.c_int]
_get_buffer.restype = ctypes.c_int
_release_buffer = ctypes.pythonapi.PyBuffer_Release
_release_buffer.argtypes = [ctypes.POINTER(_PyBuffer)]
_release_buffer.restype = None
_PyBUF_ANY_CONTIGUOUS = 0x0080 | 0x0040 | 0x0020 | 0x0008  # with ND and STRIDES


def _buffer_address(mv):
    """Start address of a contiguous memoryview's memory (read-only too).
    The memoryview keeps the export alive while the caller holds it."""
    view = _PyBuffer()
    _get_buffer(mv, ctypes.byref(view), _PyBUF_ANY_CONTIGUOUS)
    try:
        return view.buf or 0
    finally:
        _release_buffer(ctypes.byref(view))


class HostBuffer:
    """What the interpreter needs of one pointer argument."""
    __slots__ = ("addr", "nbytes", "elem", "readonly", "contiguous", "desc", "keep",
                 "swapped")

    def __init__(self, addr, nbytes, elem, readonly, contiguous, desc, keep, swapped=False):
        self.addr, self.nbytes, self.elem = addr, nbytes, elem
        self.readonly, self.contiguous, self.desc, self.keep = readonly, contiguous, desc, keep
        self.swapped = swapped   # elements in the other byte order


def _dense(shape, strides, itemsize):
    """Do the strides lay the elements out densely in C or Fortran order?"""
    if strides is None:
        return True
    def walk(dims):
        want = itemsize
        for n, s in dims:
            if n > 1 and s != want:
                return False
            want *= n
        return True
    dims = list(zip(shape, strides))
    return walk(reversed(dims)) or walk(dims)


def _from_torch(t):
    dev = str(t.device)
    desc = f"a torch tensor of {t.dtype} on {dev}"
    if dev != "cpu":
        return None, desc, True
    size = t.element_size()
    dense = _dense(tuple(t.shape), tuple(s * size for s in t.stride()), size)
    return HostBuffer(t.data_ptr(), t.numel() * size, TORCH.get(str(t.dtype)[6:]),
                      False, dense, desc, t), desc, False


def _from_array_interface(obj, ai):
    typestr = ai["typestr"]
    dtype = getattr(obj, "dtype", None)
    elem = from_typestr(typestr, getattr(dtype, "name", None))
    shape = tuple(ai["shape"])
    itemsize = typestr_itemsize(typestr) or getattr(dtype, "itemsize", 0) or 1
    n = 1
    for d in shape:
        n *= d
    addr, readonly = ai["data"]
    kind = "numpy array" if type(obj).__module__ == "numpy" else type(obj).__name__
    swapped = typestr_swapped(typestr)
    shown = typestr if swapped or dtype is None else dtype
    desc = f"a {kind} of {shown}"
    return HostBuffer(addr or 0, n * itemsize, elem, bool(readonly),
                      _dense(shape, ai.get("strides"), itemsize), desc, obj,
                      swapped), desc, False


def _from_buffer_protocol(obj):
    try:
        mv = memoryview(obj)
    except TypeError:
        return None, type(obj).__name__, False
    elem = from_format(mv.format, mv.itemsize)
    desc = f"a {type(obj).__name__} buffer of format '{mv.format}'"
    addr = _buffer_address(mv) if mv.contiguous else 0
    return HostBuffer(addr, mv.nbytes, elem, mv.readonly, mv.contiguous, desc, mv,
                      format_swapped(mv.format)), desc, False


def host_buffer(obj):
    """(HostBuffer or None, description of obj for messages, whether obj is
    device memory)."""
    mod = type(obj).__module__
    if mod.startswith("torch") and "torch" in sys.modules:
        if isinstance(obj, sys.modules["torch"].Tensor):
            return _from_torch(obj)
    ai = getattr(obj, "__array_interface__", None)
    if ai is not None:
        return _from_array_interface(obj, ai)
    if hasattr(obj, "__cuda_array_interface__"):
        return None, f"a CUDA array ({type(obj).__name__})", True
    return _from_buffer_protocol(obj)


def buffer_checker(kernel, index, param):
    """A function obj -> HostBuffer for the pointer parameter `param`."""
    want = param.type

    def bad(why):
        raise ArgumentError(kernel, why, index, param.name)

    def check(obj):
        hb, desc, on_device = host_buffer(obj)
        if hb is None:
            if isinstance(obj, (int, float, bool)):
                bad(f"must be a buffer of {want} ({describe_type(param)}), got "
                    f"{type(obj).__name__} {obj!r}")
            if on_device:
                bad(f"is {desc}: the interpreter runs on host memory "
                    f"(pass a CPU array or tensor, or run on the GPU)")
            bad(f"must be a buffer of {want} ({describe_type(param)}), got {desc}")
        if hb.elem != want:
            if hb.swapped:
                bad(f"is in non-native byte order ({desc}), but the kernel takes "
                    f"{describe_type(param)} in this machine's byte order; convert it "
                    f"first (numpy: a.astype(a.dtype.newbyteorder('=')))")
            if hb.elem is None:
                bad(f"has an element type no kernel takes ({desc}); the kernel takes "
                    f"{describe_type(param)}")
            bad(f"has element type {hb.elem} ({desc}), but the kernel "
                f"takes {describe_type(param)}")
        if not hb.contiguous:
            bad(f"is not contiguous ({desc}): the kernel addresses it as one "
                f"flat buffer; pass a contiguous copy")
        if param.stored and hb.readonly:
            bad(f"is read-only ({desc}), but the kernel stores through it")
        return hb
    return check
