#!/bin/sh
# npcheck.sh — make check's run of tests/fuzz/npcheck.py: the reference
# interpreter against the numpy model (tests/fuzz/npsem.py) on the
# element-wise, reduction, scan and shape programs tilegen.py --numpy
# generates for a fixed range of seeds (NP_SEED_FROM..NP_SEED_TO), in
# tests/fuzz/npcheck/ of the build tree. The interpreter is this build's
# libtilec, loaded by the `tile` package from python/ as python/run-tests
# loads it (TILE_LIBDIR, and a sanitized library's runtimes preloaded).
# Exit: 0 agree, 1 a difference, 77 without python3 or numpy.
src=${TILE_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import numpy' 2>/dev/null; then
    echo "npcheck.sh: $PYTHON with numpy is needed; skipped"
    exit 77
fi
TILE_LIBDIR=${TILE_LIBDIR:-$(pwd)/.libs:$(pwd)/runtime/.libs}
PYTHONPATH="$src/python${PYTHONPATH:+:$PYTHONPATH}"
PYTHONDONTWRITEBYTECODE=1
export TILE_LIBDIR PYTHONPATH PYTHONDONTWRITEBYTECODE
unset TILE_INTERPRET
libtilec=$(pwd)/.libs/libtilec.so
if command -v ldd >/dev/null 2>&1 && [ -f "$libtilec" ]; then
    san=$(ldd "$libtilec" | awk '/lib(asan|ubsan)\.so/ {print $3}' | tr '\n' ' ')
    if [ -n "$san" ]; then
        LD_PRELOAD="$san${LD_PRELOAD:+ $LD_PRELOAD}"
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
        export LD_PRELOAD ASAN_OPTIONS
    fi
fi
exec "$PYTHON" "$src/tests/fuzz/npcheck.py" -d tests/fuzz/npcheck \
    "${NP_SEED_FROM:-0}" "${NP_SEED_TO:-99}"
