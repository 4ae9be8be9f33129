"""The package's log: the standard `logging` logger named "tile".

What the Python layer knows is logged there at INFO: each compilation
(interpreter or tilec, with the defines and how long it took), bundle
cache hits and misses with the cache file, bundle loads with their
kernels, the configuration `choose()` returns, and torch custom ops as
they are made and first run on a device. The configuration a plain
launch runs is chosen inside libtile (C); libtile reports its tuning on
stderr itself under TILE_VERBOSE=1 (docs/runtime.md).

Nothing is printed unless asked for: either configure logging as usual
(`logging.getLogger("tile").setLevel(logging.INFO)` with a handler, or
`logging.basicConfig(level=logging.INFO)`), or set TILE_VERBOSE=1, which
adds one stderr handler to the "tile" logger at INFO level when the
package is imported (and only when that logger has no handler yet).
"""

import logging
import os

log = logging.getLogger("tile")


def _verbose():
    return os.environ.get("TILE_VERBOSE", "").strip().lower() not in ("", "0", "false", "no",
                                                                     "off")


def setup():
    """Honours TILE_VERBOSE (called once, by the package's import)."""
    if _verbose() and not log.handlers:
        h = logging.StreamHandler()
        h.setFormatter(logging.Formatter("tile: %(message)s"))
        log.addHandler(h)
        log.setLevel(logging.INFO)


def defines_text(defines):
    """How (name, text) define pairs read in the log: ' -DT=f16' or ''."""
    return "".join(f" -D{k}={v}" for k, v in defines)
