/*
 * from_ir.h — the bundle writer's input from the compiler: the IrModule
 * sema produced plus what the code generator made of it.
 *
 * The code generator hands over one PTX module holding every entry and,
 * per variant it built, which IR kernel (IrModule.kernels index, i.e. one
 * kernel at one configuration) it belongs to, the assumptions it was
 * compiled under and its `.entry` name. tlb_from_ir groups the module's
 * kernels by name into bundle kernels with their configurations, turns
 * grid and @require GExpr trees into postfix code, and maps the IR's types
 * to the format's own codes. This is the only part of bundle/ that knows
 * the IR; the reader and libtile never include this header.
 */
#ifndef TILE_BUNDLE_FROM_IR_H
#define TILE_BUNDLE_FROM_IR_H

#include "base/base.h"
#include "bundle/bundle.h"
#include "sema/ir.h"

/* A tensor map a variant's entry takes (plan/tma.c's LyTma in the IR's
 * terms): rank 2 or 3, dimension 0 the contiguous one; a third
 * dimension (a batch) has box 1 and no extent. */
typedef struct TlbCodeTmap {
    int param;             /* the pointer parameter: element [0, 0] */
    ScalarKind elem;
    int swizzle;           /* bytes */
    int rank;
    int32_t box[2];
    const IrValue *dim[2]; /* extents: a parameter or an integer constant,
                              maybe widened; NULL: unbounded (2^31) */
    const IrValue *stride[2];  /* of dimensions 1 and 2, in elements (the
                                  same kinds of value) */
} TlbCodeTmap;

typedef struct TlbCodeVariant {
    int kernel;          /* index into IrModule.kernels */
    const uint8_t *guard;  /* [the kernel's parameters]: TlbVariant.guard */
    uint32_t dyn_smem;   /* dynamic shared memory bytes per program */
    const char *entry;   /* its `.entry` name in `ptx` */
    uint16_t l1_programs;  /* TlbVariant.l1_programs */
    int ntmaps;
    const TlbCodeTmap *tmaps;   /* TlbVariant.tmaps */
    uint8_t flags;       /* TlbVariant.flags */
} TlbCodeVariant;

typedef struct TlbCode {
    const char *producer;            /* "tilec 0.1.0" */
    const char *arch;                /* the PTX's target, "sm_90" */
    const char *ptx;                 /* NUL-terminated */
    int nvariants;
    const TlbCodeVariant *variants;
    int ncubins;                     /* optional */
    const TlbCubin *cubins;
} TlbCode;

/* Fills *out (arena memory; out->mem stays NULL, so never tlb_free it).
 * Returns 0, or -1 with the reason in err (a configuration without any
 * variant, a variant naming no kernel, an expression too deep). With code
 * NULL, *out is the kernels' descriptor alone (no PTX, no variants): what
 * the interpreter chooses configurations on (bundle/choose.h). */
int tlb_from_ir(Arena *ar, const IrModule *m, const TlbCode *code,
                TlbBundle *out, char *err, size_t errlen);

/* The position of m->kernels[i] among its kernel's configurations in
 * tlb_from_ir's output (config_index order). */
int tlb_ir_config_rank(const IrModule *m, int i);

/* The postfix form of one GExpr (arena memory); -1 when it is deeper than
 * the format allows. Exposed for the tests. */
int tlb_expr_from_gexpr(Arena *ar, const GExpr *g, TlbExpr *out);

#endif
