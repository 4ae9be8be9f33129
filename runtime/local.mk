# runtime: libtile, the installed library that loads bundles and launches
# their kernels (API: runtime/tile.h, docs/runtime.md). It links nothing of
# the compiler (only bundle/libtlb.la) and nothing of CUDA: the driver is
# dlopen'd at run time.
lib_LTLIBRARIES += runtime/libtile.la
include_HEADERS += runtime/tile.h
runtime_libtile_la_SOURCES = runtime/tile.h runtime/rt.h runtime/driver.h \
	runtime/driver.c runtime/error.c runtime/plan.c runtime/load.c \
	runtime/launch.c runtime/select.c runtime/tune.c runtime/cache.c
runtime_libtile_la_LIBADD = bundle/libtlb.la -ldl -lpthread -lm
runtime_libtile_la_LDFLAGS = -version-info 0:0:0

# CPU tests of libtile (no driver needed).
check_PROGRAMS += tests/unit/test_runtime
TESTS += tests/unit/test_runtime
tests_unit_test_runtime_SOURCES = tests/unit/test_runtime.c tests/unit/check.h \
	tests/unit/bundle_util.h tests/unit/vadd_bundle.h
tests_unit_test_runtime_CPPFLAGS = $(AM_CPPFLAGS) $(TILE_TEST_CPPFLAGS)
tests_unit_test_runtime_LDADD = runtime/libtile.la

# GPU tests: built by make check, skipped (exit 77) without a GPU; run on a
# GPU machine by scripts/gpu-runtime-check.sh. The benchmark is built with
# them but is not a test.
check_PROGRAMS += tests/unit/test_gpu_runtime tests/unit/test_gpu_tune tests/unit/test_gpu_tmap \
	bench/launch_overhead
TESTS += tests/unit/test_gpu_runtime tests/unit/test_gpu_tune tests/unit/test_gpu_tmap
tests_unit_test_gpu_tmap_SOURCES = tests/unit/test_gpu_tmap.c tests/unit/gpu_util.h
tests_unit_test_gpu_tmap_LDADD = runtime/libtile.la -lpthread -lm
tests_unit_test_gpu_tmap_LDFLAGS = $(GPU_PROG_STATIC)
tests_unit_test_gpu_tune_SOURCES = tests/unit/test_gpu_tune.c tests/unit/gpu_util.h \
	tests/unit/spin_bundle.h
tests_unit_test_gpu_tune_LDADD = runtime/libtile.la -lpthread -lm
tests_unit_test_gpu_tune_LDFLAGS = $(GPU_PROG_STATIC)
tests_unit_test_gpu_runtime_SOURCES = tests/unit/test_gpu_runtime.c \
	tests/unit/gpu_util.h tests/unit/vadd_bundle.h
tests_unit_test_gpu_runtime_LDADD = runtime/libtile.la -lpthread -lm
tests_unit_test_gpu_runtime_LDFLAGS = $(GPU_PROG_STATIC)
bench_launch_overhead_SOURCES = bench/launch_overhead.c tests/unit/gpu_util.h tests/unit/spin_bundle.h \
	tests/unit/vadd_bundle.h
bench_launch_overhead_LDADD = runtime/libtile.la
bench_launch_overhead_LDFLAGS = $(GPU_PROG_STATIC)
EXTRA_DIST += scripts/gpu-runtime-check.sh scripts/gpu-tune-check.sh scripts/gpu-step.sh

# libtile against a test double of the driver (tests/unit/fake_libcuda.c,
# built as a shared object here): too old, no device, failing calls.
check_PROGRAMS += tests/unit/test_runtime_driver
TESTS += tests/unit/test_runtime_driver
tests_unit_test_runtime_driver_SOURCES = tests/unit/test_runtime_driver.c \
	tests/unit/check.h tests/unit/vadd_bundle.h
tests_unit_test_runtime_driver_CPPFLAGS = $(AM_CPPFLAGS) $(TILE_TEST_CPPFLAGS)
tests_unit_test_runtime_driver_LDADD = runtime/libtile.la
EXTRA_DIST += tests/unit/fake_libcuda.c tests/unit/fake_cuda.h
CLEANFILES += tests/unit/fakecuda.so
EXTRA_tests_unit_test_runtime_driver_DEPENDENCIES = tests/unit/fakecuda.so
tests/unit/fakecuda.so: $(srcdir)/tests/unit/fake_libcuda.c $(srcdir)/tests/unit/fake_cuda.h
	$(AM_V_CC)$(MKDIR_P) tests/unit && \
	$(CC) $(AM_CFLAGS) $(CFLAGS) $(LDFLAGS) -shared -fPIC -o $@ \
	    $(srcdir)/tests/unit/fake_libcuda.c

# The autotuner and its disk cache against the working mode of the same
# test double (FAKE_CUDA_WORKING=1: fake timings, host memory).
check_PROGRAMS += tests/unit/test_tune
TESTS += tests/unit/test_tune
tests_unit_test_tune_SOURCES = tests/unit/test_tune.c tests/unit/check.h \
	tests/unit/bundle_util.h tests/unit/spin_bundle.h
tests_unit_test_tune_CPPFLAGS = $(AM_CPPFLAGS) $(TILE_TEST_CPPFLAGS)
tests_unit_test_tune_LDADD = runtime/libtile.la -ldl
EXTRA_tests_unit_test_tune_DEPENDENCIES = tests/unit/fakecuda.so

# Tensor maps (TMA descriptors): their evaluation, encoding (the double
# records cuTensorMapEncodeTiled's arguments), launch parameters, errors
# and the per-thread cache.
check_PROGRAMS += tests/unit/test_tmap
TESTS += tests/unit/test_tmap
tests_unit_test_tmap_SOURCES = tests/unit/test_tmap.c tests/unit/check.h \
	tests/unit/bundle_util.h tests/unit/fake_cuda.h
tests_unit_test_tmap_CPPFLAGS = $(AM_CPPFLAGS) $(TILE_TEST_CPPFLAGS)
tests_unit_test_tmap_LDADD = runtime/libtile.la -ldl
EXTRA_tests_unit_test_tmap_DEPENDENCIES = tests/unit/fakecuda.so

# libtile as data-parallel ranks use it: two devices of the same double in
# one process, several processes storing into one tuning cache.
check_PROGRAMS += tests/unit/test_ranks
TESTS += tests/unit/test_ranks
tests_unit_test_ranks_SOURCES = tests/unit/test_ranks.c tests/unit/check.h \
	tests/unit/spin_bundle.h
tests_unit_test_ranks_CPPFLAGS = $(AM_CPPFLAGS) $(TILE_TEST_CPPFLAGS)
tests_unit_test_ranks_LDADD = runtime/libtile.la -ldl -lpthread
EXTRA_tests_unit_test_ranks_DEPENDENCIES = tests/unit/fakecuda.so

# The interpreter and libtile pick configurations through one chooser
# (bundle/choose.c): the same picks and messages, on a CPU.
check_PROGRAMS += tests/unit/test_choose_agree
TESTS += tests/unit/test_choose_agree
tests_unit_test_choose_agree_SOURCES = tests/unit/test_choose_agree.c tests/unit/check.h
tests_unit_test_choose_agree_CPPFLAGS = $(AM_CPPFLAGS) $(TILE_TEST_CPPFLAGS)
tests_unit_test_choose_agree_LDADD = libtilec.la runtime/libtile.la
EXTRA_DIST += tests/unit/Inputs/choose.tile
