"""Device arrays for GPU launches: torch CUDA tensors, objects with
__cuda_array_interface__, and DLPack producers, reduced to a device
pointer after checking element type, contiguity and device.

A checker is made per pointer parameter when the kernel is first used.
For torch tensors (the common case) it compares the dtype object and reads
data_ptr() and get_device() directly; other objects take the general path.
"""

import ctypes
import sys

from ._host import _dense
from ._types import (DLPACK, ELEM, TORCH, describe_type, from_typestr, torch_dtype,
                     typestr_itemsize)
from .errors import ArgumentError

_KDL_CUDA, _KDL_CUDA_MANAGED = 2, 13


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_pointer.restype = ctypes.c_void_p


class DeviceArray:
    __slots__ = ("ptr", "elem", "device", "dense", "desc", "keep", "readonly")

    def __init__(self, ptr, elem, device, dense, desc, keep, readonly=False):
        self.ptr, self.elem, self.device = ptr, elem, device
        self.dense, self.desc, self.keep = dense, desc, keep
        self.readonly = readonly


def _from_dlpack(obj):
    dev_type, dev_id = obj.__dlpack_device__()
    desc = (f"host memory (DLPack {type(obj).__name__})" if dev_type == 1 else
            f"a DLPack {type(obj).__name__} on device type {dev_type}")
    if dev_type not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        return None, desc
    capsule = obj.__dlpack__()
    # The capsule's first member is the DLTensor (DLManagedTensor layout).
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    elem = DLPACK.get((t.dtype.code, t.dtype.bits)) if t.dtype.lanes == 1 else None
    shape = [t.shape[i] for i in range(t.ndim)]
    size = max(t.dtype.bits // 8, 1)
    strides = None if not t.strides else [t.strides[i] * size for i in range(t.ndim)]
    return DeviceArray((t.data or 0) + t.byte_offset, elem, dev_id,
                       _dense(shape, strides, size), desc, capsule), desc


def device_array(obj):
    """(DeviceArray or None, description of obj)."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        desc = f"a torch tensor of {obj.dtype} on {obj.device}"
        if not obj.is_cuda:
            return None, desc
        return DeviceArray(obj.data_ptr(), TORCH.get(str(obj.dtype)[6:]), obj.get_device(),
                           obj.is_contiguous(), desc, obj), desc
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        typestr = cai["typestr"]
        elem = from_typestr(typestr, getattr(getattr(obj, "dtype", None), "name", None))
        desc = f"a {type(obj).__name__} (CUDA array interface, {typestr})"
        return DeviceArray(cai["data"][0] or 0, elem, None,
                           _dense(cai["shape"], cai.get("strides"),
                                  typestr_itemsize(typestr) or 1),
                           desc, obj, bool(cai["data"][1])), desc
    if hasattr(obj, "__array_interface__"):
        return None, f"host memory ({type(obj).__module__}.{type(obj).__name__})"
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        return _from_dlpack(obj)
    return None, type(obj).__name__


def pointer_checker(kernel, index, param):
    """A function obj -> (device pointer, device index or None) for the
    pointer parameter `param`."""
    want = param.type
    torch = sys.modules.get("torch")
    Tensor = torch.Tensor if torch is not None else None
    want_dtype = torch_dtype(torch, want)

    def bad(why):
        raise ArgumentError(kernel, why, index, param.name)

    def general(obj):
        a, desc = device_array(obj)
        if a is None:
            if isinstance(obj, (int, float, bool)):
                bad(f"must be a device array of {want} ({describe_type(param)}), got "
                    f"{type(obj).__name__} {obj!r}")
            bad(f"is {desc}: GPU mode needs device memory (a CUDA tensor or array; "
                f"use interpret=True to run on host arrays)")
        if a.elem != want:
            bad(f"has element type {a.elem or 'unknown'} ({desc}), but the kernel "
                f"takes {describe_type(param)}")
        if not a.dense:
            bad(f"is not contiguous ({desc}): the kernel addresses it as one flat "
                f"buffer; pass a contiguous copy")
        if param.stored and a.readonly:
            bad(f"is read-only ({desc}), but the kernel stores through it")
        return a.ptr, a.device

    size = ELEM[want][0]
    want_typestr = None if want == "bf16" or want.startswith("f8") else \
        ("|" if size == 1 else "<") + ("b" if want == "bool" else want[0]) + str(size)

    def check(obj):
        # The common cases first, with nothing computed for messages.
        if type(obj) is Tensor and obj.dtype is want_dtype and obj.is_cuda \
                and obj.is_contiguous():
            return obj.data_ptr(), obj.get_device()
        if Tensor is not None and isinstance(obj, Tensor):
            # Subclasses (nn.Parameter), other dtypes: torch's own answers,
            # with the device; its __cuda_array_interface__ refuses
            # tensors that require grad.
            return general(obj)
        cai = getattr(obj, "__cuda_array_interface__", None)
        if cai is not None and cai["typestr"] == want_typestr and cai.get("strides") is None \
                and not (param.stored and cai["data"][1]):
            return cai["data"][0] or 0, None
        return general(obj)
    return check
