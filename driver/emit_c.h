/*
 * emit_c.h — `tilec --emit=c`: a bundle as C source, for programs that
 * link libtile and want typed launch functions instead of argument arrays.
 */
#ifndef TILE_DRIVER_EMIT_C_H
#define TILE_DRIVER_EMIT_C_H

#include <stddef.h>
#include <stdio.h>

/* Writes NAME.c (into c_out) and NAME.h (into h_out) for the bundle of
 * `size` bytes at `data`, compiled from `source`; `name` must be a C
 * identifier (the prefix of every generated symbol), `header` the name the
 * .c file includes. Returns 0, or -1 with a reason in err. */
int emit_c(const void *data, size_t size, const char *source, const char *name,
           const char *header, FILE *c_out, FILE *h_out, char *err, size_t errlen);

#endif
