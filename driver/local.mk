# driver: fragment of the top-level Makefile.am — the tilec command.
bin_PROGRAMS += tilec
tilec_SOURCES = driver/tilec.c driver/emit_c.c driver/emit_c.h
tilec_LDADD = bundle/libtlbir.la bundle/libtlb.la lower/liblower.la sema/libsema.la parser/libparser.la base/libbase.la -lm
