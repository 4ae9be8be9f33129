# tests/gpu: the example kernels on a GPU, from bundles through libtile,
# against the C references. The checks live in the example host programs
# (examples/host/NAME.c: one small libtile program per example, each also
# built on its own); tests/gpu/examples_gpu runs them all over a directory
# of bundles. Without a GPU everything here skips (exit 77), so make check
# stays green on CI; on a GPU machine scripts/gpu-bench.sh runs them
# (docs/gpu-testing.md).
host_examples = examples/host/vadd.c examples/host/bias_gelu.c \
	examples/host/softmax.c examples/host/layernorm.c \
	examples/host/cross_entropy.c examples/host/stencil.c \
	examples/host/dropout.c examples/host/transpose.c examples/host/mma.c

# What the host programs share (host.c: set-up, buffers, checks, main),
# compiled once.
noinst_LTLIBRARIES += examples/host/libhost.la
examples_host_libhost_la_SOURCES = examples/host/host.h examples/host/host.c

# The example programs themselves (usage: NAME [BUNDLE_DIR]): each is
# examples/host/NAME.c (automake's default source) linked with LDADD, this
# Makefile's default, which only they use (every other program names its
# own _LDADD).
host_programs = $(host_examples:.c=)
check_PROGRAMS += $(host_programs)
LDADD = examples/host/libhost.la examples/ref/libref.la runtime/libtile.la -lm

check_PROGRAMS += tests/gpu/examples_gpu
tests_gpu_examples_gpu_SOURCES = tests/gpu/examples_gpu.c $(host_examples)
tests_gpu_examples_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DTILE_HOST_NO_MAIN

# All of them are one file each, to carry to a GPU machine
# (GPU_PROG_STATIC), as the _LDFLAGS of the other GPU programs say; a
# target-specific variable (GNU make), `private` so that what they are
# built from does not inherit it.
gpu_static_programs = $(host_programs:=$(EXEEXT)) tests/gpu/examples_gpu$(EXEEXT)
$(gpu_static_programs): private AM_LDFLAGS = $(GPU_PROG_STATIC)

# The test: builds the bundles with the tree's tilec (only when a GPU is
# there to run them) and runs examples_gpu over them.
TEST_EXTENSIONS += .test
TESTS += tests/gpu/examples-gpu.test
EXTRA_DIST += tests/gpu/examples-gpu.test tests/gpu/examples-bundles.sh \
	scripts/gpu-bench.sh
CLEANFILES += tests/gpu/bundles/*.tlb tests/gpu/bundles/spec.tile

# The benchmark (run on the GPU machine by scripts/gpu-bench.sh; see
# docs/PERF.md) is distributed with the tests that share its bundles.
EXTRA_DIST += bench/README.md bench/bench.py bench/tile_ctypes.py \
	bench/configs.py bench/build_bundles.py bench/compile_time.sh \
	bench/kernels/softmax.tile bench/kernels/layernorm.tile \
	bench/charts.py bench/test_charts.py bench/test-charts
# The benchmark's charts drawn from fake rows (skipped without matplotlib).
TESTS += bench/test-charts
# The profiling tools of scripts/gpu-profile.sh (SASS opcode counts,
# Nsight Compute stalls by source line) on small inputs.
EXTRA_DIST += bench/sass_stats.py bench/ncu_lines.py bench/test_profile_tools.py \
	bench/test-profile-tools scripts/gpu-profile.sh
TESTS += bench/test-profile-tools
