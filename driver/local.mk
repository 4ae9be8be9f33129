# driver: fragment of the top-level Makefile.am — the tilec command, and
# libcompile, the one source-to-bundle pipeline (compile.c) that tilec and
# every in-process compiler (examples, tests) link.
noinst_LTLIBRARIES += driver/libcompile.la
driver_libcompile_la_SOURCES = driver/compile.c driver/compile.h
bin_PROGRAMS += tilec
tilec_SOURCES = driver/tilec.c driver/emit_c.c driver/emit_c.h
tilec_LDADD = driver/libcompile.la bundle/libtlbir.la bundle/libtlb.la lower/liblower.la sema/libsema.la parser/libparser.la base/libbase.la -lm
