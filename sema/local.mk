noinst_LTLIBRARIES += sema/libir.la
sema_libir_la_SOURCES = sema/ir.h sema/ir.c
