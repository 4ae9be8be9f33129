/*
 * interp.h — the reference interpreter of the tile IR (internal header).
 *
 * The interpreter is the executable definition of what a kernel means: the
 * GPU lowering is tested against it, so it favours exactness over speed.
 * It runs one IrKernel over a grid on host memory, program after program
 * (x fastest, then y, then z); inside a program it executes ops in order,
 * each over a whole tile.
 *
 * Values. Every SSA value has a fixed array of `numel` slots, planned
 * once per run from the static types and the values' lifetimes (run.c):
 * values that are never live at once share storage, so memory follows
 * the largest set of live tiles, not the number of values (an unrolled
 * kernel); nothing is allocated while a program runs, and a value
 * redefined in each loop iteration reuses its slots. A slot holds one element in canonical form:
 *   - integers as int64, sign-extended for signed types and zero-extended
 *     for unsigned ones, always already wrapped to the type's width;
 *   - bool as 0 or 1;
 *   - floats as a double holding a value exactly representable in the
 *     element type (f32 results are rounded to float, f16/bf16 results to
 *     half/bfloat after every op), so f16/bf16/f32 arithmetic has the same
 *     results as on hardware that computes in that type;
 *   - pointers as (buffer, element offset): the high 16 bits name the
 *     registered buffer (1-based), the low 48 bits are a signed element
 *     offset. Offsets are in elements of the pointee, so a misaligned
 *     pointer cannot be formed; an offset that leaves the 48-bit range
 *     becomes a "wild" pointer that faults on any access.
 *
 * Errors (out-of-bounds access, integer division by zero, failed
 * device_assert) are reported through the Diag at the op's location,
 * naming the program, and stop the run.
 */
#ifndef TILE_INTERP_INTERNAL_H
#define TILE_INTERP_INTERNAL_H

#include "../sema/ir.h"

#include <signal.h>
#include <stdio.h>

typedef union IpSlot {
    int64_t i;
    uint64_t u;
    double f;
} IpSlot;

/* One runtime argument of a kernel, already checked against its parameter
 * (the public API does that): buffers for pointer parameters, `i` for
 * integer/bool parameters, `f` for float parameters. */
typedef struct IpArg {
    void *data;
    size_t bytes;
    int64_t i;
    double f;
} IpArg;

/* Runs k over grid[0] x grid[1] x grid[2] programs. device_print writes to
 * `print` (stdout when NULL). Returns 0, or -1 after reporting an error
 * through dg. */
int ip_run(const IrKernel *k, const IpArg *args, const uint32_t grid[3],
           Diag *dg, FILE *print);

/* Limits of a run: after max_steps steps (0: no limit) or once *cancel
 * (when non-NULL) is nonzero, the run stops with an error at the op it
 * reached. A step is one op executed (over a whole tile) or one loop
 * iteration; the count runs over all programs. */
typedef struct IpLimits {
    uint64_t max_steps;
    const volatile sig_atomic_t *cancel;
} IpLimits;
int ip_run_limited(const IrKernel *k, const IpArg *args, const uint32_t grid[3],
                   Diag *dg, FILE *print, const IpLimits *lim);

/* ------------------------------------------------ floating-point formats */

/* Round-to-nearest-even conversions to IEEE binary16 and bfloat16 bit
 * patterns (subnormals, overflow to infinity, NaN kept quiet with its
 * sign), and exact conversions back. */
uint16_t ip_f16_from_double(double x);
uint16_t ip_bf16_from_double(double x);
double ip_f16_to_double(uint16_t h);
double ip_bf16_to_double(uint16_t h);
/* Rounds an f32 to tf32 (10 explicit mantissa bits), to nearest with ties
 * away from zero, as cvt.rna.tf32.f32 does. */
float ip_tf32_trunc(float x);
/* Rounds x to the nearest value of float kind k (once). */
double ip_round(ScalarKind k, double x);

/* ------------------------------------------------------ element helpers */

/* Wraps the low bits of v to integer/bool kind k (canonical form). */
int64_t ip_wrap(ScalarKind k, uint64_t v);
/* Converts one canonical element from kind `from` to kind `to` (as `as`
 * does: ints wrap, floats round to nearest even, float to int truncates
 * and saturates, NaN to int gives 0). Pointers are not handled here. */
IpSlot ip_convert(ScalarKind from, ScalarKind to, IpSlot s);
/* The bits of one canonical element of kind `from` read as kind `to`, of
 * the same width (bitcast). A signalling NaN comes out quiet. */
IpSlot ip_bitcast(ScalarKind from, ScalarKind to, IpSlot s);

/* ----------------------------------------------------------- machine */

/* A registered buffer: the argument of a pointer parameter. */
typedef struct IpBuffer {
    const char *name;     /* the parameter's name, for messages */
    unsigned char *data;
    size_t bytes;
} IpBuffer;

/* The state of one run; the op implementations (elementwise.c, tileops.c,
 * memory.c) work on it, run.c drives it. */
typedef struct IpMachine {
    const IrKernel *k;
    Diag *dg;
    FILE *print;
    IpSlot **val;         /* value id -> its numel slots */
    IpSlot *stage;        /* staging area for loop-carried values */
    IpBuffer *buf;        /* buf[i] is pointer id i + 1 */
    int nbuf;
    uint32_t pid[3], npid[3];
    uint64_t steps, max_steps;            /* IpLimits */
    const volatile sig_atomic_t *cancel;
} IpMachine;

static inline IpSlot *ip_val(const IpMachine *m, const IrValue *v) {
    return m->val[v->id];
}

/* The combiner region of a RED_FN reduce or SCAN_FN scan on (a, b), a
 * holding the earlier elements: 0 and *out, or -1 after an error. */
int ip_combine(IpMachine *m, const IrOp *op, IpSlot a, IpSlot b, IpSlot *out);

/* Reports an error at op's location, naming the current program; returns
 * -1 for the caller to pass up. */
int ip_fail(IpMachine *m, const IrOp *op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Writes the multi-index of flat element i of type t, "(1, 2)", to buf. */
const char *ip_index_str(char *buf, size_t n, Type t, int64_t i);

/* Pointers: buffer id (1-based) in the high 16 bits, signed element offset
 * in the low 48; IP_WILD marks an offset that overflowed. */
#define IP_OFF_MAX (((int64_t)1 << 47) - 1)
#define IP_WILD (-((int64_t)1 << 47))
static inline uint64_t ip_ptr(int buf, int64_t off) {
    return ((uint64_t)buf << 48) | ((uint64_t)off & (((uint64_t)1 << 48) - 1));
}
static inline int ip_ptr_buf(uint64_t p) { return (int)(p >> 48); }
static inline int64_t ip_ptr_off(uint64_t p) {
    return (int64_t)(p << 16) >> 16;
}

/* Each returns 0, or -1 after ip_fail. */
int ip_exec_elementwise(IpMachine *m, const IrOp *op); /* cast, arith, cmp,
                                                          math, fma, select */
int ip_exec_tile(IpMachine *m, const IrOp *op);        /* creation, shape,
                                                          reduce, scan, dot */
int ip_exec_memory(IpMachine *m, const IrOp *op);      /* ptradd, load,
                                                          store, atomics */

#endif
