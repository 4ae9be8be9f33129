# tests/gpu: the example kernels on a GPU, from bundles through libtile,
# against the C references. The checks live in the example host programs
# (examples/host/NAME.c: one small libtile program per example, each also
# built on its own); tests/gpu/examples_gpu runs them all over a directory
# of bundles. Without a GPU everything here skips (exit 77), so make check
# stays green on CI; on a GPU machine scripts/gpu-bench.sh runs them
# (docs/gpu-testing.md).
host_common = examples/host/host.h examples/host/host.c
host_examples = examples/host/vadd.c examples/host/bias_gelu.c \
	examples/host/softmax.c examples/host/layernorm.c \
	examples/host/cross_entropy.c examples/host/stencil.c \
	examples/host/dropout.c examples/host/transpose.c examples/host/mma.c

check_PROGRAMS += tests/gpu/examples_gpu
tests_gpu_examples_gpu_SOURCES = tests/gpu/examples_gpu.c $(host_common) \
	$(host_examples)
tests_gpu_examples_gpu_CPPFLAGS = $(AM_CPPFLAGS) -DTILE_HOST_NO_MAIN
tests_gpu_examples_gpu_LDADD = examples/ref/libref.la runtime/libtile.la -lm
tests_gpu_examples_gpu_LDFLAGS = $(GPU_PROG_STATIC)

# The example programs themselves (usage: NAME [BUNDLE_DIR]).
check_PROGRAMS += examples/host/vadd examples/host/bias_gelu \
	examples/host/softmax examples/host/layernorm \
	examples/host/cross_entropy examples/host/stencil \
	examples/host/dropout examples/host/transpose examples/host/mma
host_ldadd = examples/ref/libref.la runtime/libtile.la -lm
examples_host_vadd_SOURCES = examples/host/vadd.c $(host_common)
examples_host_vadd_LDADD = $(host_ldadd)
examples_host_vadd_LDFLAGS = $(GPU_PROG_STATIC)
examples_host_bias_gelu_SOURCES = examples/host/bias_gelu.c $(host_common)
examples_host_bias_gelu_LDADD = $(host_ldadd)
examples_host_bias_gelu_LDFLAGS = $(GPU_PROG_STATIC)
examples_host_softmax_SOURCES = examples/host/softmax.c $(host_common)
examples_host_softmax_LDADD = $(host_ldadd)
examples_host_softmax_LDFLAGS = $(GPU_PROG_STATIC)
examples_host_layernorm_SOURCES = examples/host/layernorm.c $(host_common)
examples_host_layernorm_LDADD = $(host_ldadd)
examples_host_layernorm_LDFLAGS = $(GPU_PROG_STATIC)
examples_host_cross_entropy_SOURCES = examples/host/cross_entropy.c $(host_common)
examples_host_cross_entropy_LDADD = $(host_ldadd)
examples_host_cross_entropy_LDFLAGS = $(GPU_PROG_STATIC)
examples_host_stencil_SOURCES = examples/host/stencil.c $(host_common)
examples_host_stencil_LDADD = $(host_ldadd)
examples_host_stencil_LDFLAGS = $(GPU_PROG_STATIC)
examples_host_dropout_SOURCES = examples/host/dropout.c $(host_common)
examples_host_dropout_LDADD = $(host_ldadd)
examples_host_dropout_LDFLAGS = $(GPU_PROG_STATIC)
examples_host_transpose_SOURCES = examples/host/transpose.c $(host_common)
examples_host_transpose_LDADD = $(host_ldadd)
examples_host_transpose_LDFLAGS = $(GPU_PROG_STATIC)

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
# The SASS opcode counter of scripts/gpu-profile.sh on a small listing.
EXTRA_DIST += bench/sass_stats.py bench/test_sass_stats.py bench/test-sass-stats \
	scripts/gpu-profile.sh
TESTS += bench/test-sass-stats
examples_host_mma_SOURCES = examples/host/mma.c $(host_common)
examples_host_mma_LDADD = $(host_ldadd)
examples_host_mma_LDFLAGS = $(GPU_PROG_STATIC)
