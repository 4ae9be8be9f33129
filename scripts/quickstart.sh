#!/usr/bin/env bash
# From a fresh checkout to a running kernel: installs the Debian packages
# (scripts/install-deps.sh), bootstraps and configures the build, builds
# everything, then runs the softmax demo — examples/softmax.tile compiled
# and run on the GPU when there is one, else in the reference interpreter,
# its result checked against a C reference. Afterwards `make -j2 check` runs the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure
make -j"$(nproc)"

./examples/softmax_demo
