#!/bin/sh
# memory-limit.sh TILEC... FILE — runs the compiler on FILE with an address
# space (ulimit -v) 96 MiB above what the compiler needs to start, so that
# FILE's compilation runs out of memory. The start-up need (shared
# libraries: LLVM is large) is found by trying `--version` under growing
# limits.
#
# AddressSanitizer reserves terabytes of address space for its shadow
# memory, so an ASan build cannot run under ulimit -v: there FILE is
# compiled without a limit, and the expected message is printed only when
# that succeeds (FILE is valid and within the compiler's budgets, so its
# failure elsewhere is the memory limit's). tests/unit/test_sema.c checks
# the out-of-memory path itself in every build, with an arena limit.
tilec=$1
if { nm "$tilec"; nm -D "$tilec"; } 2>&1 | grep -q __asan_init; then
    out=$("$@" 2>&1) && echo "tilec: error: out of memory"
    exit 1
fi
kib=131072
while [ $kib -lt 4194304 ]; do
    (ulimit -v $kib; out=$("$tilec" --version 2>&1)) && break
    kib=$((kib + 32768))
done
ulimit -v $((kib + 98304))
exec "$@"
