# tests/numerics: the examples, the stdlib and the user kernels of
# tests/gpu/ops/user.tile (run_user.c) and the backward kernels of
# examples/torch/mlp.tile (run_mlp.c) run in the reference
# interpreter against their C references (examples/ref), on fresh random
# inputs. Each cases/*.num file is one Automake test — one example at one
# set of sizes, dtypes and configurations — run by the `numerics` program
# (see numerics.c for the file format).
check_PROGRAMS += tests/numerics/numerics
tests_numerics_numerics_SOURCES = tests/numerics/numerics.c \
	tests/numerics/harness.c tests/numerics/harness.h \
	tests/numerics/run_examples.c tests/numerics/run_stdlib.c \
	tests/numerics/run_mma.c tests/numerics/run_math.c \
	tests/numerics/run_libdevice.c \
	tests/numerics/run_user.c tests/numerics/run_mlp.c
tests_numerics_numerics_CPPFLAGS = $(AM_CPPFLAGS) $(TILE_TEST_CPPFLAGS)
tests_numerics_numerics_LDADD = examples/ref/libref.la interp/libinterp.la \
	bundle/libtlbir.la bundle/libtlb.la \
	sema/libsema.la parser/libparser.la base/libbase.la -lm

TEST_EXTENSIONS += .num
NUM_LOG_COMPILER = $(top_builddir)/tests/numerics/numerics
# Listed one by one (Automake writes a log rule per test).
numerics_cases = tests/numerics/cases/bias_gelu-bf16.num \
	tests/numerics/cases/mlp-layernorm_bwd.num \
	tests/numerics/cases/mlp-layernorm_bwd-bf16.num \
	tests/numerics/cases/mlp-gelu_bwd.num \
	tests/numerics/cases/mlp-gelu_bwd-bf16.num \
	tests/numerics/cases/stencil-jacobi.num \
	tests/numerics/cases/matmul-f16.num \
	tests/numerics/cases/dot-f16acc.num \
	tests/numerics/cases/matmul-bf16.num \
	tests/numerics/cases/matmul-f32.num \
	tests/numerics/cases/matmul-group.num \
	tests/numerics/cases/matmul_gelu.num \
	tests/numerics/cases/bmm.num \
	tests/numerics/cases/attention-d64.num \
	tests/numerics/cases/attention-d64-causal.num \
	tests/numerics/cases/attention-d128.num \
	tests/numerics/cases/attention-d128-causal.num \
	tests/numerics/cases/bias_gelu-f16.num \
	tests/numerics/cases/bias_gelu-f32.num \
	tests/numerics/cases/cross_entropy-vocab.num \
	tests/numerics/cases/cross_entropy.num \
	tests/numerics/cases/dropout.num \
	tests/numerics/cases/layernorm-bf16.num \
	tests/numerics/cases/layernorm-f16.num \
	tests/numerics/cases/layernorm-long.num \
	tests/numerics/cases/layernorm.num \
	tests/numerics/cases/matmul_bias_relu-big-tiles.num \
	tests/numerics/cases/matmul_bias_relu.num \
	tests/numerics/cases/linear_relu.num \
	tests/numerics/cases/softmax-config.num \
	tests/numerics/cases/softmax-long.num \
	tests/numerics/cases/softmax.num \
	tests/numerics/cases/std_math-f16.num \
	tests/numerics/cases/std_math-f32.num \
	tests/numerics/cases/std_gelu-f32.num \
	tests/numerics/cases/std_gelu-f16.num \
	tests/numerics/cases/std_gelu-bf16.num \
	tests/numerics/cases/std_gelu-f64.num \
	tests/numerics/cases/std_random.num \
	tests/numerics/cases/std_grid.num \
	tests/numerics/cases/stencil-heat1.num \
	tests/numerics/cases/stencil-heat2.num \
	tests/numerics/cases/transpose.num \
	tests/numerics/cases/vadd-block128.num \
	tests/numerics/cases/vadd.num \
	tests/numerics/cases/builtin_math-f32.num \
	tests/numerics/cases/builtin_math-f16.num \
	tests/numerics/cases/builtin_math-bf16.num \
	tests/numerics/cases/libdevice_math-f32.num \
	tests/numerics/cases/libdevice_math-f64.num \
	tests/numerics/cases/libdevice_math-f16.num \
	tests/numerics/cases/libdevice_math-bf16.num \
	tests/numerics/cases/user-rope.num \
	tests/numerics/cases/user-gelu_bwd.num \
	tests/numerics/cases/user-top1.num \
	tests/numerics/cases/user-rmsnorm.num \
	tests/numerics/cases/user-rmsnorm-8k.num \
	tests/numerics/cases/user-swiglu.num \
	tests/numerics/cases/user-quant.num \
	tests/numerics/cases/user-cumsum.num
TESTS += $(numerics_cases)
EXTRA_DIST += $(numerics_cases) tests/numerics/kernels/std_math.tile \
	tests/numerics/kernels/std_random.tile \
	tests/numerics/kernels/std_grid.tile \
	tests/numerics/kernels/std_gelu.tile \
	tests/numerics/kernels/builtin_math.tile \
	tests/numerics/kernels/libdevice_math.tile
