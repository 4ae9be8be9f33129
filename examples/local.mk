# examples: the example kernels, their C references and the softmax demo.
#
# The .tile files are installed as data ($(pkgdatadir)/examples) so that
# an installed tilec has something to compile; examples/ref is a small
# library of double-precision references used by the demo and by
# tests/numerics.
examplesdir = $(pkgdatadir)/examples
dist_examples_DATA = examples/vadd.tile examples/bias_gelu.tile \
	examples/softmax.tile examples/matmul_bias_relu.tile \
	examples/layernorm.tile examples/cross_entropy.tile \
	examples/stencil.tile examples/dropout.tile examples/transpose.tile \
	examples/matmul.tile examples/matmul_gelu.tile examples/linear_relu.tile \
	examples/bmm.tile \
	examples/attention.tile

# tile.torch: a transformer MLP block trained through Tile custom ops
# (python/tests/test_torch.py runs it small in the interpreter;
# scripts/gpu-python.sh on the GPU).
EXTRA_DIST += examples/torch/mlp.tile examples/torch/mlp_train.py examples/softmax.py
# The same block under DistributedDataParallel, launched by torchrun
# (python/tests/test_ranks.py: gloo on the CPU; scripts/gpu-ddp.sh: NCCL).
EXTRA_DIST += examples/torch/ddp_train.py scripts/gpu-ddp.sh

noinst_LTLIBRARIES += examples/ref/libref.la
examples_ref_libref_la_SOURCES = examples/ref/ref.h examples/ref/half.c \
	examples/ref/math.c examples/ref/random.c examples/ref/vadd.c \
	examples/ref/bias_gelu.c examples/ref/softmax.c \
	examples/ref/matmul_bias_relu.c examples/ref/layernorm.c \
	examples/ref/cross_entropy.c examples/ref/stencil.c \
	examples/ref/dropout.c examples/ref/transpose.c examples/ref/mma.c

# The README's quick start: `make && ./examples/softmax_demo`. It also runs
# as a test (in the interpreter, where there is no GPU). On a GPU it
# compiles the kernel in-process, so it links the compiler's stages and
# libtile; GPU_PROG_STATIC makes the program one file that can be carried
# to a GPU machine (with --enable-static-llvm, LLVM too).
noinst_PROGRAMS = examples/softmax_demo
examples_softmax_demo_SOURCES = examples/softmax_main.c
examples_softmax_demo_CPPFLAGS = $(AM_CPPFLAGS) $(TILE_TEST_CPPFLAGS) \
	-DTILE_EXAMPLES_DIR='"$(examplesdir)"'
examples_softmax_demo_LDADD = examples/ref/libref.la interp/libinterp.la driver/libcompile.la \
	runtime/libtile.la bundle/libtlbir.la bundle/libtlb.la \
	lower/liblower.la sema/libsema.la parser/libparser.la base/libbase.la -lm
examples_softmax_demo_LDFLAGS = $(GPU_PROG_STATIC)
TESTS += examples/softmax_demo
