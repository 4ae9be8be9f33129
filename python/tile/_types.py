"""Element types: the kernel signature's names and the dtypes of numpy,
torch, DLPack and the buffer protocol, mapped onto each other.

A signature entry is parsed once per kernel into a Param (name, element
type, pointer or not, stored through or not) and a range for integer
scalars; launches then compare short strings only.
"""

import sys
from collections import namedtuple

# Element type name -> (size in bytes, numpy dtype name).
ELEM = {
    "bool": (1, "bool"), "i8": (1, "int8"), "i16": (2, "int16"), "i32": (4, "int32"),
    "i64": (8, "int64"), "u8": (1, "uint8"), "u16": (2, "uint16"), "u32": (4, "uint32"),
    "u64": (8, "uint64"), "f16": (2, "float16"), "bf16": (2, "bfloat16"),
    "f32": (4, "float32"), "f64": (8, "float64"),
    "f8e4m3": (1, "float8_e4m3fn"), "f8e5m2": (1, "float8_e5m2"),
}

INT_RANGE = {
    "i8": (-2**7, 2**7), "i16": (-2**15, 2**15), "i32": (-2**31, 2**31),
    "i64": (-2**63, 2**63), "u8": (0, 2**8), "u16": (0, 2**16), "u32": (0, 2**32),
    "u64": (0, 2**64),
}

FLOATS = ("f16", "bf16", "f32", "f64")

# torch dtype (as str(dtype) minus "torch.") -> element type.
TORCH = {
    "bool": "bool", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "float8_e4m3fn": "f8e4m3", "float8_e5m2": "f8e5m2",
}

NUMPY = {v[1]: k for k, v in ELEM.items()}

# element type -> torch dtype name ("f32" -> "float32")
_TORCH_NAME = {v: k for k, v in TORCH.items()}


def torch_dtype(torch, elem):
    """torch's dtype object of an element type ('f32'), or None (no torch,
    or a torch without that dtype)."""
    return getattr(torch, _TORCH_NAME[elem], None) if torch is not None else None

# Array-interface typestr kind letter + size -> element type.
_TYPESTR = {("b", 1): "bool", ("i", 1): "i8", ("i", 2): "i16", ("i", 4): "i32",
            ("i", 8): "i64", ("u", 1): "u8", ("u", 2): "u16", ("u", 4): "u32",
            ("u", 8): "u64", ("f", 2): "f16", ("f", 4): "f32", ("f", 8): "f64"}

# DLPack type code (0 int, 1 uint, 2 float, 4 bfloat, 6 bool) + bits.
DLPACK = {(0, 8): "i8", (0, 16): "i16", (0, 32): "i32", (0, 64): "i64",
          (1, 8): "u8", (1, 16): "u16", (1, 32): "u32", (1, 64): "u64",
          (2, 16): "f16", (2, 32): "f32", (2, 64): "f64", (4, 16): "bf16",
          (6, 8): "bool", (1, 1): "bool"}

_FORMAT_KIND = {"?": "b", "b": "i", "h": "i", "i": "i", "l": "i", "q": "i", "n": "i",
                "B": "u", "H": "u", "I": "u", "L": "u", "Q": "u", "N": "u",
                "e": "f", "f": "f", "d": "f"}


# The byte-order character of this machine's typestrs ('<' on x86-64).
NATIVE_ORDER = "<" if sys.byteorder == "little" else ">"


def typestr_swapped(typestr):
    """Is an __array_interface__ typestr ('>f4') in the other byte order?
    ('|' marks types without one: bytes, objects.)"""
    return typestr[:1] not in ("|", "=", NATIVE_ORDER)


def typestr_itemsize(typestr):
    """The item size of a typestr ('<f4' -> 4, '<M8[s]' -> 8); None when it
    has none ('|O')."""
    digits = ""
    for ch in typestr[2:]:
        if not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits else None


def from_typestr(typestr, dtype_name=None):
    """Element type of an __array_interface__ typestr ('<f4'), or None
    (non-native byte order, objects, strings, complex, ...). dtype_name
    (numpy's dtype.name) resolves types the typestr cannot express, such
    as ml_dtypes' bfloat16 ('<V2'); it never overrides the byte order:
    '>f4' is named float32 too."""
    if len(typestr) < 3 or typestr_swapped(typestr):
        return None
    if dtype_name in NUMPY:
        return NUMPY[dtype_name]
    return _TYPESTR.get((typestr[1], typestr_itemsize(typestr)))


def format_swapped(fmt):
    """Is a buffer-protocol format ('>f', '!i') in the other byte order?"""
    return bool(fmt) and fmt[0] in "<>!" and fmt[0] != NATIVE_ORDER


def from_format(fmt, itemsize):
    """Element type of a buffer-protocol format ('f', '<e', 'B'), or None
    (also for the other byte order)."""
    if format_swapped(fmt):
        return None
    if fmt and fmt[0] in "@=<>":
        fmt = fmt[1:]
    kind = _FORMAT_KIND.get(fmt)
    return _TYPESTR.get((kind, itemsize)) if kind else None


def type_name(value):
    """The Tile name of a type given as a string ('f16'), a numpy dtype or
    scalar type (np.float16), or a torch dtype (torch.float16); None when
    the value is not a type."""
    if isinstance(value, str):
        return value
    s = str(value)
    if s.startswith("torch."):
        return TORCH.get(s[6:])
    name = getattr(value, "name", None)         # numpy dtype
    if name is None and isinstance(value, type):
        name = getattr(value, "__name__", None)  # numpy scalar type: float16
    return NUMPY.get(name) if isinstance(name, str) else None


Param = namedtuple("Param", "name type pointer stored")
Param.__doc__ = ("A runtime parameter: name, element type ('f32'), whether it is "
                 "a pointer, whether the kernel stores through it.")


def parse_signature(text):
    """Params of tile_kernel_params's text ("out *f32 stored\\n...")."""
    params = []
    for line in text.splitlines():
        parts = line.split()
        ty = parts[1]
        params.append(Param(parts[0], ty.lstrip("*"), ty.startswith("*"),
                            "stored" in parts[2:]))
    return params


def describe_type(p):
    """How a parameter's type reads in messages: '*f32' or 'i32'."""
    return ("*" if p.pointer else "") + p.type
