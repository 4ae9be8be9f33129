# examples/aot: a C program over the typed launchers of `tilec --emit=c`
# (docs/aot.md). The launchers are generated from examples/softmax.tile by
# the tree's tilec; the program runs as a test: it checks the embedded
# bundle anywhere and the results on a GPU (exit 77 without one).
AOT_GENERATED = examples/aot/softmax_aot.c examples/aot/softmax_aot.h
$(AOT_GENERATED): examples/aot/.stamp
examples/aot/.stamp: $(srcdir)/examples/softmax.tile tilec$(EXEEXT)
	$(AM_V_GEN)$(MKDIR_P) examples/aot && \
	TILE_STDLIB=$(srcdir)/stdlib ./tilec$(EXEEXT) --emit=c \
	    $(srcdir)/examples/softmax.tile -o examples/aot/softmax_aot && touch $@
CLEANFILES += $(AOT_GENERATED) examples/aot/.stamp
check_PROGRAMS += examples/aot/softmax_aot
TESTS += examples/aot/softmax_aot
nodist_examples_aot_softmax_aot_SOURCES = $(AOT_GENERATED)
examples_aot_softmax_aot_SOURCES = examples/aot/softmax_main.c
examples_aot_softmax_aot_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/runtime -Iexamples/aot
examples_aot_softmax_aot_CFLAGS = $(AM_CFLAGS) -Wno-strict-prototypes -Wno-old-style-definition
examples_aot_softmax_aot_LDADD = runtime/libtile.la -ldl -lm
examples_aot_softmax_aot_LDFLAGS = $(GPU_PROG_STATIC)
examples/aot/softmax_aot-softmax_main.$(OBJEXT): examples/aot/softmax_aot.h
