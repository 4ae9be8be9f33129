# tests/gpu/ops: the differential test of the GPU back end against the
# interpreter (difftest.c; the kernels and their cases are the *.tile files
# here). make check builds the bundles with the tree's tilec and runs every
# case on the interpreter, then on the GPU where there is one, else on
# simulated warps (sim/: the lowered LLVM IR rebuilt for the host, one
# pthread per GPU thread; check.sh). On the GPU machine:
# scripts/gpu-ops-check.sh run, after `scripts/gpu-ops-check.sh prepare` here.
#
# The tensor-core file (dot.tile) is built and run once per architecture
# of DOT_ARCHS: sm_80 (mma.sync, ldmatrix, cp.async) and sm_90a (wgmma
# where tilec emits it, mma.sync elsewhere); `make check-dot
# DOT_ARCHS=sm_90a` runs that file alone, for the architectures given.
DOT_ARCHS = sm_80 sm_90a
AM_TESTS_ENVIRONMENT += DOT_ARCHS='$(DOT_ARCHS)'; export DOT_ARCHS;
check_PROGRAMS += tests/gpu/ops/difftest
tests_gpu_ops_difftest_SOURCES = tests/gpu/ops/difftest.c
tests_gpu_ops_difftest_LDADD = libtilec.la runtime/libtile.la -ldl -lpthread -lm
tests_gpu_ops_difftest_LDFLAGS = $(GPU_PROG_STATIC)
TESTS += tests/gpu/ops/check.sh tests/gpu/ops/racecheck.sh
EXTRA_DIST += tests/gpu/ops/check.sh tests/gpu/ops/racecheck.sh scripts/gpu-ops-check.sh \
	tests/gpu/ops/sim/x86.py tests/gpu/ops/sim/warpsim.c \
	tests/gpu/ops/sim/wgmma.ll tests/gpu/ops/sim/wgmma_check.c \
	$(patsubst $(abs_top_srcdir)/%,%,$(wildcard $(abs_top_srcdir)/tests/gpu/ops/*.tile))
check-dot: tilec$(EXEEXT) tests/gpu/ops/difftest$(EXEEXT)
	$(AM_TESTS_ENVIRONMENT) $(SHELL) $(srcdir)/tests/gpu/ops/check.sh dot
clean-local: clean-gpu-ops
clean-gpu-ops:
	rm -rf tests/gpu/ops/bundles
.PHONY: check-dot clean-gpu-ops
