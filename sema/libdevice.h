/*
 * libdevice.h — the libdevice functions `libdevice("name", x[, y])` calls.
 *
 * One table serves every stage: sema checks a name and its arity, the
 * lowering calls `__nv_<name>f` (f32; f16/bf16 go through f32) or
 * `__nv_<name>` (f64), and the interpreter computes the host C library's
 * function of the same name in double and rounds once to the result type,
 * as it does for the other math builtins (nextafter, whose step depends
 * on the format, uses nextafterf below f64). Only functions with such a host
 * equivalent are listed (libdevice.c says how each was chosen).
 */
#ifndef TILE_LIBDEVICE_H
#define TILE_LIBDEVICE_H

typedef struct LdFn {
    const char *name;                /* libdevice's name without __nv_, f */
    int nargs;                       /* 1 or 2 float operands */
    double (*f1)(double);            /* the host function when nargs == 1 */
    double (*f2)(double, double);    /* ... when nargs == 2 */
    float (*f2_f32)(float, float);   /* if set, used instead of f2 for
                                        f32/f16/bf16: the float function
                                        differs from double's rounded */
} LdFn;

/* The entry for name, or NULL. */
const LdFn *ld_find(const char *name);
/* The supported names, ", "-separated, into buf (size n; truncated). */
void ld_names(char *buf, int n);

#endif
