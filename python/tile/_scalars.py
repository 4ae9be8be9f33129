"""Checking Python scalars against a kernel's scalar parameters.

Integers must be integers (Python int, numpy integers: anything with
__index__) within the parameter's range; floats take any real number;
bools take True/False (or 0/1). One checker is made per parameter when the
kernel is first used, so a launch is a call per argument and nothing more.
"""

import numbers
import operator

from ._types import FLOATS, INT_RANGE
from .errors import ArgumentError


def _what(v):
    return f"{type(v).__module__}.{type(v).__name__}".replace("builtins.", "")


def scalar_checker(kernel, index, param):
    """A function value -> int or float for the scalar parameter `param`."""
    name, ty = param.name, param.type

    def bad(v, why):
        raise ArgumentError(kernel, why, index, name)

    if ty in FLOATS:
        def as_float(v):
            if isinstance(v, float):
                return v
            if isinstance(v, numbers.Real) and not hasattr(v, "__array_interface__"):
                return float(v)
            if hasattr(v, "item") and getattr(v, "ndim", 1) == 0 and getattr(v, "size", 1) == 1:
                return as_float(v.item())
            bad(v, f"must be a number ({ty}), got {_what(v)}")
        return as_float

    if ty == "bool":
        def as_bool(v):
            if v is True or v is False:
                return int(v)
            try:
                i = operator.index(v)
            except TypeError:
                bad(v, f"must be a bool, got {_what(v)}")
            if i not in (0, 1):
                bad(v, f"must be a bool, got {i}")
            return i
        return as_bool

    lo, hi = INT_RANGE[ty]

    def as_int(v):
        if type(v) is int and lo <= v < hi:
            return v
        try:
            i = operator.index(v)
        except TypeError:
            bad(v, f"must be an integer ({ty}), got {_what(v)}"
                + (f" {v!r}" if isinstance(v, float) else ""))
        if not lo <= i < hi:
            bad(v, f"is {i}, which does not fit in {ty}")
        return i
    return as_int
