# driver: fragment of the top-level Makefile.am — the tilec command.
bin_PROGRAMS += tilec
tilec_SOURCES = driver/tilec.c
tilec_LDADD = lower/liblower.la sema/libsema.la parser/libparser.la base/libbase.la -lm
