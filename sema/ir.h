/*
 * ir.h — the typed tile IR that sema produces and every later stage reads.
 *
 * Values are SSA: each is defined once, by an op result or as a block
 * argument, and carries a static Type (element kind + shape). Broadcasting
 * is explicit (splat, broadcast, expand_dims), so every element-wise op sees
 * operands of one shape. Control flow is structured, as in MLIR's scf
 * dialect: `for`, `if` and `while` own regions (single blocks); values that
 * change in a loop enter as block arguments and leave through `yield`, and
 * the op's results are their final values. Analyses are therefore forward
 * walks over nested blocks, with no CFG to build.
 *
 * One IrKernel is one kernel at one configuration: compile-time parameters
 * are substituted, `fn` calls are inlined and static_range loops unrolled by
 * sema. Element-wise ops are generic over the element type (`add` adds ints
 * or floats; signedness comes from the type); the printer spells them
 * `addi`/`addf` for the reader.
 *
 * Every op keeps its source Loc, which the interpreter uses in its runtime
 * errors and the lowering in line info.
 */
#ifndef TILE_IR_H
#define TILE_IR_H

#include "../base/base.h"

/* ---------------------------------------------------------------- types */

typedef enum {
    SK_VOID,
    SK_BOOL,
    SK_I8, SK_I16, SK_I32, SK_I64,
    SK_U8, SK_U16, SK_U32, SK_U64,
    SK_F16, SK_BF16, SK_F32, SK_F64,
    SK_F8E4M3, SK_F8E5M2,   /* OCP FP8, storage types (docs/language.md) */
    SK_PTR,     /* pointer to global memory; Type.pointee says to what */
    SK_COUNT
} ScalarKind;

#define IR_MAXRANK 4

typedef struct Type {
    uint8_t k;          /* ScalarKind of each element */
    uint8_t pointee;    /* when k == SK_PTR */
    uint8_t rank;       /* 0: scalar */
    int32_t dim[IR_MAXRANK];
} Type;

Type ty_scalar(ScalarKind k);
Type ty_ptr(ScalarKind pointee);
Type ty_tile(Type elem, int rank, const int32_t *dims); /* elem's shape is
                                                            replaced */
Type ty_elem(Type t);                                   /* rank 0 copy */
int ty_eq(Type a, Type b);
int ty_same_shape(Type a, Type b);
int64_t ty_numel(Type t);
/* Padded tiles. An extent need not be a power of two; layouts (and so the
 * registers, lanes and warps a tile spreads over) are built for the tile
 * padded to the next power of two in each dimension. The padding lanes
 * hold values no program can observe: the lowering masks them out of
 * memory accesses, reductions, sorts, prints and asserts
 * (docs/internals/layout.md, "Padded tiles"). ty_pad is t with every
 * extent rounded up; ty_padded says whether any extent was. */
Type ty_pad(Type t);
int ty_padded(Type t);
/* Whether reshaping `from` to `to` (same element count) keeps every
 * element's position in the padded layouts too: a row-major reshape
 * moves no data only then (ly_reshape). Always true without padding. */
int ty_reshape_in_place(Type from, Type to);
int ty_isint(ScalarKind k);      /* i*, u* (not bool) */
int ty_isfloat(ScalarKind k);
int ty_issigned(ScalarKind k);   /* i* */
int ty_bits(ScalarKind k);       /* bool 1, ptr 64 */
int ty_bytes(ScalarKind k);      /* storage size: bool 1, ptr 8 */
const char *ty_kind_name(ScalarKind k);          /* "f32" */
/* FP8, OCP's formats: f8e4m3 is E4M3 "fn" (no infinities; NaN is
 * S.1111.111; largest 448), f8e5m2 is E5M2 (IEEE-like; largest 57344).
 * They are floats for promotion and conversion, but values are only
 * loaded, stored, converted and moved (sema refuses arithmetic on them).
 * A conversion to f8 goes through f32 (x as f32 first) and rounds to
 * nearest even, saturating: magnitudes past the largest finite value,
 * infinities among them, give it; NaN gives the canonical NaN 0x7f.
 * The interpreter follows these functions' rules, and so does the GPU
 * (lower/elementwise.c: PTX's cvt.rn.satfinite from sm_89, integer
 * arithmetic before). */
int ty_isf8(ScalarKind k);
/* A format's shape, for the codec here and the lowering's integer form. */
typedef struct TyF8Format {
    int mbits, bias;        /* mantissa bits and exponent bias: 3, 7 / 2, 15 */
    float largest;          /* the largest finite value: 448 / 57344 */
    uint8_t largest_code;   /* its code: 0x7e / 0x7b */
} TyF8Format;
TyF8Format ty_f8_format(ScalarKind k);
uint8_t ty_f8_from_float(ScalarKind k, float x);
/* The code of x, a value of format k (stored or bitcast, not converted):
 * the same but for e5m2's infinities, which keep theirs. */
uint8_t ty_f8_bits(ScalarKind k, float x);
float ty_f8_to_float(ScalarKind k, uint8_t b);
ScalarKind ty_kind_by_name(const char *name);    /* SK_VOID if unknown */
/* "f32", "*f16", "i32[64, 32]", "*f32[1024]" into an arena string. */
const char *ty_str(Arena *a, Type t);

/* ------------------------------------------------------------------ ops */

#define IR_OPS(X)                                                          \
    /* name         mnemonic        */                                     \
    X(CONST,        "const")        /* iattr[0] bits or fattr; scalar */   \
    X(PROGRAM_ID,   "program_id")   /* iattr[0] axis */                    \
    X(NUM_PROGRAMS, "num_programs") /* iattr[0] axis */                    \
    X(ARANGE,       "arange")       /* iattr[0] lo, iattr[1] hi; [s]: an   \
                                       i32 in [0, hi - lo), position p     \
                                       holds lo + (p - s) mod (hi - lo)    \
                                       (plan/realign.c only) */            \
    X(SPLAT,        "splat")        /* scalar -> tile */                   \
    X(BROADCAST,    "broadcast")    /* size-1 dims stretch, same rank */   \
    X(EXPAND_DIMS,  "expand_dims")  /* iattr[0] axis */                    \
    X(RESHAPE,      "reshape")                                             \
    X(PERMUTE,      "permute")      /* iattr[0..rank) the permutation */   \
    X(CAST,         "cast")         /* element conversion */               \
    X(ADD, "add") X(SUB, "sub") X(MUL, "mul") X(DIV, "div") X(REM, "rem")  \
    X(AND, "and") X(OR, "or") X(XOR, "xor") X(SHL, "shl") X(SHR, "shr")    \
    X(MIN, "min") X(MAX, "max")     /* floats: IEEE minNum/maxNum */       \
    X(POW, "pow") X(UMULHI, "umulhi")                                      \
    X(CMP,          "cmp")          /* iattr[0] CmpPred; result bool */    \
    X(NEG, "neg") X(NOT, "not")     /* not: bitwise; logical on bool */    \
    X(ABS, "abs") X(EXP, "exp") X(EXP2, "exp2") X(LOG, "log")              \
    X(LOG2, "log2") X(SQRT, "sqrt") X(RSQRT, "rsqrt") X(SIN, "sin")        \
    X(COS, "cos") X(TANH, "tanh") X(ERF, "erf") X(FLOOR, "floor")          \
    X(ROUND, "round")               /* half away from zero */              \
    X(RINT, "rint")                 /* half to even */                     \
    X(TRUNC, "trunc") X(TAN, "tan") X(ATAN2, "atan2") /* atan2(y, x) */    \
    X(BITCAST,      "bitcast")      /* the bits as a kind of one width */  \
    X(LIBDEVICE,    "libdevice")    /* 1 or 2 float operands; sattr the    \
                                       function's name (libdevice.h) */    \
    /* CEIL ends the element-wise ops from ADD (layout_assign.c tests the   \
     * range): a new element-wise op goes before it */                     \
    X(CEIL, "ceil")                                                        \
    X(FMA,          "fma")                                                 \
    X(SELECT,       "select")       /* cond, a, b (where) */               \
    X(PTRADD,       "ptradd")       /* ptr, int offset in elements */      \
    X(LOAD,         "load")         /* ptr [, mask [, other]]; iattr[0]    \
                                       LoadFlags, [1] cache, [2] evict,    \
                                       [3] cp.async ring depth (0: none;   \
                                       set by plan/pipeline.c) */          \
    X(STORE,        "store")        /* ptr, value [, mask] */              \
    X(ATOMIC,       "atomic")       /* ptr, value [, mask]; iattr[0]       \
                                       AtomicKind; result: old values */   \
    X(ATOMIC_CAS,   "atomic_cas")   /* ptr, cmp, value */                  \
    X(REDUCE,       "reduce")       /* iattr[0] ReduceKind, [1] axis;      \
                                       RED_FN: region 0 the combiner */    \
    X(SCAN,         "cumsum")       /* iattr[0] axis, [1] ScanKind;        \
                                       SCAN_FN: region 0 the combiner */   \
    X(SLICE,        "slice")        /* iattr[0] axis, [1] start: the      \
                                       result's extent from start on */    \
    X(CAT,          "cat")          /* a, b of one shape; iattr[0] axis:  \
                                       b's elements after a's */           \
    X(GATHER,       "gather")       /* src, index (int, the result's      \
                                       shape); iattr[0] axis */            \
    X(SORT,         "sort")         /* iattr[0] axis, [1] 1: descending;   \
                                       NaN after numbers (before: desc) */ \
    X(DOT,          "dot")          /* a, b, acc; iattr[0] 1 = ieee */     \
    X(FOR,          "for")          /* lo, hi, step, inits...; region 0    \
                                       args (iv, carried...) */            \
    X(IF,           "if")           /* cond; regions then, else */         \
    X(WHILE,        "while")        /* inits...; region 0 "before" ends in \
                                       condition, region 1 "after" ends in \
                                       yield */                            \
    X(YIELD,        "yield")                                               \
    X(CONDITION,    "condition")    /* cond, values... */                  \
    X(PRINT,        "device_print") /* sattr format; args */               \
    X(ASSERT,       "device_assert")/* cond; sattr message */              \
    X(BARRIER,      "debug_barrier")                                       \
    X(MULTIPLE_OF,  "multiple_of")  /* identity; iattr[0] n */             \
    X(MAX_CONTIG,   "max_contiguous") /* identity; iattr[0] n */      \
    X(CONVERT_LAYOUT, "convert_layout") /* identity on values; result   \
                                       has another layout (layout.h) */

typedef enum {
#define X(n, s) IR_##n,
    IR_OPS(X)
#undef X
    IR_NUM_OPS
} IrOpcode;

extern const char *const ir_op_name[IR_NUM_OPS];

typedef enum { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE } CmpPred;
/* RED_FN and SCAN_FN combine with a region of two scalar arguments of
 * the element type (a: the earlier elements, b: the later) ending in a
 * yield of one such scalar: a user's fn, inlined by sema. */
typedef enum { RED_SUM, RED_MAX, RED_MIN, RED_ARGMAX, RED_ARGMIN, RED_FN } ReduceKind;
typedef enum { SCAN_SUM, SCAN_PROD, SCAN_MAX, SCAN_MIN, SCAN_FN } ScanKind;
typedef enum { ATOM_ADD, ATOM_MAX, ATOM_MIN, ATOM_XCHG } AtomicKind;
enum { LOAD_MASK = 1, LOAD_OTHER = 2 };    /* LOAD iattr[0]; STORE/ATOMIC
                                              use nargs to tell a mask */
typedef enum { CACHE_DEFAULT, CACHE_CA, CACHE_CG, CACHE_CS, CACHE_CV } CacheMode;
typedef enum { EVICT_NORMAL, EVICT_FIRST, EVICT_LAST } EvictMode;

typedef struct IrOp IrOp;
typedef struct IrBlock IrBlock;
struct Layout;           /* plan/layout.h */

typedef struct IrValue {
    Type ty;
    int id;              /* dense per kernel, assigned at creation */
    IrOp *def;           /* defining op, or NULL for a block argument */
    IrBlock *block;      /* for block arguments: the owner */
    int index;           /* result index or argument index */
    const char *name;    /* source name where one exists (for printing and
                            debugging), else NULL */
    const struct Layout *layout; /* after layout assignment (layout.h): how
                            a tile is spread over threads; NULL for
                            scalars and before the pass */
} IrValue;

struct IrOp {
    uint16_t op;         /* IrOpcode */
    Loc loc;
    int nargs, nres, nregions;
    IrValue **args;
    IrValue **res;
    IrBlock **regions;
    int64_t iattr[IR_MAXRANK];
    double fattr;
    const char *sattr;
    IrOp *prev, *next;
    IrBlock *parent;
};

struct IrBlock {
    int nargs;
    IrValue **args;
    IrOp *first, *last;
    IrOp *parent;        /* the op owning this region; NULL for a body */
};

/* ---------------------------------------------- kernels and grid exprs */

/* Expressions the runtime evaluates at each launch (grid, @require),
 * over runtime scalar parameters with compile-time parameters already
 * substituted. Integer semantics are those of the C int64_t; `cdiv` rounds
 * up for positive operands. */
typedef enum {
    GX_CONST, GX_PARAM,
    GX_ADD, GX_SUB, GX_MUL, GX_DIV, GX_MOD, GX_CDIV, GX_MIN, GX_MAX,
    GX_SHL, GX_SHR, GX_AND, GX_OR, GX_XOR,
    GX_EQ, GX_NE, GX_LT, GX_LE, GX_GT, GX_GE,
    GX_LAND, GX_LOR, GX_LNOT, GX_NEG,
    GX_SELECT,           /* a ? b : c  */
} GxKind;

typedef struct GExpr {
    uint8_t kind;        /* GxKind */
    int64_t value;       /* GX_CONST */
    int param;           /* GX_PARAM: index into the runtime parameters */
    struct GExpr *a, *b, *c;
} GExpr;

/* Evaluates e with args[i] the value of runtime parameter i (integers as
 * int64, floats truncated). Returns 0, or -1 on division by zero. */
int gx_eval(const GExpr *e, const int64_t *args, int64_t *out);

typedef struct IrCparam {
    const char *name;
    int kind;            /* CP_INT, CP_BOOL, CP_TYPE */
    int64_t value;       /* int/bool value, or the ScalarKind of a type */
    ScalarKind ty;       /* the declared integer type (CP_INT) */
} IrCparam;
enum { CP_INT, CP_BOOL, CP_TYPE };

typedef struct IrParam {
    const char *name;
    Type ty;             /* scalar or pointer, rank 0 */
    Loc loc;
    int nospecialize;
    int stored;          /* pointer the kernel stores or atomically updates
                            through (filled by sema) */
} IrParam;

typedef struct IrKernel {
    const char *name;
    Loc loc;
    int nparams;
    IrParam *params;
    IrBlock *body;       /* args[i] is runtime parameter i */
    int ncparams;
    IrCparam *cparams;   /* this configuration's compile-time values */
    int warps, stages;
    int config_index;    /* position in the kernel's configuration list */
    int ngrid;           /* 0: the caller passes a grid */
    GExpr *grid[3];
    int nrequire;
    GExpr **require;     /* all must be non-zero for this config to run */
    int ntune_key;
    int *tune_key;       /* runtime parameter indices */
    int nvalues;         /* ids are < nvalues */
    int64_t nops;        /* ops ever created in it (sema's budget) */
} IrKernel;

typedef struct IrModule {
    Arena *ar;
    int nkernels;
    IrKernel **kernels;  /* every kernel x configuration, in source order */
    int nfiles;
    const char **files;  /* every source file sema read, as opened: the
                            main file first, then each import once */
} IrModule;

/* -------------------------------------------------------------- building */

typedef struct IrBuilder {
    Arena *ar;
    IrKernel *k;
    IrBlock *blk;        /* ops are appended here */
    Loc loc;             /* location given to new ops */
} IrBuilder;

IrKernel *ir_kernel(Arena *ar, const char *name, int nparams,
                    const IrParam *params);
IrBlock *ir_block(IrBuilder *b, int nargs, const Type *argty);
/* Appends a new op to b->blk with nres results of the given types (with
 * b->blk NULL: in no block, parent NULL, for ir_insert_after). */
IrOp *ir_emit(IrBuilder *b, IrOpcode op, int nres, const Type *resty,
              int nargs, IrValue *const *args);
/* The operand index of a load's or a store's mask (-1: none, or another op). */
int ir_access_mask(const IrOp *op);
/* What running an op does besides computing its results, one place for
 * the passes that merge, move or recompute ops (plan/cse.c, pipeline.c,
 * persist.c); each adds its own rule on cost. 0: nothing. */
enum {
    IR_FX_READS = 1,     /* reads memory (load) */
    IR_FX_WRITES = 2,    /* writes memory (store, atomic, atomic_cas) */
    IR_FX_SYNC = 4,      /* a barrier */
    IR_FX_OUTPUT = 8,    /* device_print, device_assert */
    IR_FX_CONTROL = 16,  /* for, if, while and their yield, condition */
};
int ir_op_effects(IrOpcode op);
/* A one-result op of type t in no block (plan/ rewrites of a variant's
 * copy link it where it belongs with ir_insert_after). */
IrOp *ir_detached(Arena *ar, IrKernel *k, IrOpcode op, Type t, int nargs,
                  IrValue *const *args, Loc loc);
/* Links op into blk right after pos (first in blk when pos is NULL). */
void ir_insert_after(IrOp *op, IrBlock *blk, IrOp *pos);
/* Unlinks op from its block (plan/ rewrites of a variant's copy). */
void ir_unlink(IrOp *op);
/* Every operand `from` in b (nested regions included) becomes `to`. */
void ir_replace_uses(IrBlock *b, const IrValue *from, IrValue *to);
/* Adds each operand read in b (nested regions included) to uses[id]. */
void ir_count_uses(int *uses, const IrBlock *b);
/* Operand reads per value id of k, in a zeroed array of k->nvalues + 1
 * ints from ar (the plan/ rewrites ask how many readers a value has). */
int *ir_use_counts(Arena *ar, const IrKernel *k);
/* Shorthand for one result; the argument list ends with NULL. */
IrValue *ir_op1(IrBuilder *b, IrOpcode op, Type t, ...);
IrValue *ir_const_int(IrBuilder *b, Type t, int64_t v);  /* scalar t */
IrValue *ir_const_float(IrBuilder *b, Type t, double v);
void ir_add_regions(IrBuilder *b, IrOp *op, int n);

/* ------------------------------------------------------------ printing */

/* Prints the module in the textual form of DESIGN.md, deterministically
 * (values renumbered in print order). */
/* A deep copy of m (ir_clone.c): the same ids, ops and order, new
 * storage; for passes that annotate their own copy (one per variant). */
IrModule *ir_clone_module(Arena *ar, const IrModule *m);
IrKernel *ir_clone_kernel(Arena *ar, const IrKernel *k);

void ir_print_module(FILE *out, const IrModule *m);
void ir_print_kernel(FILE *out, const IrKernel *k);
void gx_print(FILE *out, const GExpr *e, const IrKernel *k);

/* A configuration as diagnostics and the IR printer name it:
 * "BM=64, T=f16, EVEN=true, warps=4, stages=3" (in ar). */
const char *ir_config_text(Arena *ar, const IrCparam *cp, int n, int warps,
                           int stages);

#endif
