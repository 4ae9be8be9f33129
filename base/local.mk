noinst_LTLIBRARIES += base/libbase.la
base_libbase_la_SOURCES = base/base.h base/arena.c base/diag.c base/file.c \
	base/map.c
