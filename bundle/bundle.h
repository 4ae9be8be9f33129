/*
 * bundle.h — the Tile bundle (.tlb): what tilec writes and libtile loads.
 *
 * A bundle is one file holding everything the runtime needs to launch the
 * kernels of one .tile source without any compiler code: per kernel its
 * signature, its configurations (compile-time parameter values, warps,
 * stages, the `grid` and `@require` expressions), the tune key, and per
 * configuration its specialization variants, each naming its `.entry` in
 * one PTX module the bundle carries (plus, optionally, a cubin per GPU
 * architecture). docs/bundle.md describes the bytes.
 *
 * This header is the in-memory form, shared by the writer (tilec) and the
 * reader (libtile). It deliberately repeats nothing of sema/ir.h: libtile
 * must link without the compiler, and the file format must not change when
 * the compiler renumbers its enums. Codes here (TlbType, TlbOp) are the
 * format's own, fixed forever within a format version; bundle/from_ir.c is
 * the one place that translates the IR into them.
 *
 * Expressions are postfix code over a small stack (TlbInsn); the reader
 * verifies each one (stack depth, operand counts, parameter indices) so
 * that tlb_eval never checks anything but division by zero.
 *
 * Memory: a TlbBundle from tlb_read owns all it points to; tlb_free
 * releases it. Everything is plain data, safe to read from any thread.
 */
#ifndef TILE_BUNDLE_H
#define TILE_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#define TLB_MAGIC "\x89TLB\r\n\x1a\n"  /* 8 bytes, PNG-style */
#define TLB_VERSION 6u                  /* what tlb_write writes */
#define TLB_VERSION_OLDEST 1u           /* the oldest tlb_read reads */
#define TLB_HEADER_SIZE 32u
#define TLB_EXPR_MAXDEPTH 32            /* evaluation stack, in values */
#define TLB_MAXDIM 3                    /* grid dimensions */
#define TLB_TMAP_MAXRANK 3              /* tensor map dimensions */
#define TLB_MAX_TMAPS 8                 /* tensor maps per variant */
#define TLB_MAX_FILE ((uint64_t)1 << 30) /* largest bundle file libtile
                                           reads (header + payload) */

/* Scalar types of parameters (and compile-time `type` parameters). */
typedef enum {
    TLB_VOID = 0,
    TLB_BOOL = 1,
    TLB_I8, TLB_I16, TLB_I32, TLB_I64,
    TLB_U8, TLB_U16, TLB_U32, TLB_U64,
    TLB_F16, TLB_BF16, TLB_F32, TLB_F64,
    TLB_PTR,
    TLB_F8E4M3, TLB_F8E5M2,     /* pointees only (no f8 scalar parameters) */
    TLB_NTYPES
} TlbType;

const char *tlb_type_name(TlbType t);   /* "f32"; "?" when out of range */
int tlb_type_isint(TlbType t);          /* i*, u* (not bool) */
int tlb_type_issigned(TlbType t);
int tlb_type_isfloat(TlbType t);
int tlb_type_bytes(TlbType t);          /* storage size; ptr 8, bool 1 */

/* Postfix expression operations. CONST pushes `value`, PARAM pushes the
 * integer value of runtime parameter `param`; the others pop their
 * operands (two, or one for LNOT/NEG, three for SELECT: cond, a, b) and
 * push the result. Semantics are those of C int64_t with wrap-around,
 * exactly sema's gx_eval: DIV/MOD/CDIV by zero (or INT64_MIN by -1) fail,
 * shifts use the low 6 bits of the count, comparisons give 0 or 1. */
typedef enum {
    TLB_X_CONST = 1, TLB_X_PARAM,
    TLB_X_ADD, TLB_X_SUB, TLB_X_MUL, TLB_X_DIV, TLB_X_MOD, TLB_X_CDIV,
    TLB_X_MIN, TLB_X_MAX, TLB_X_SHL, TLB_X_SHR, TLB_X_AND, TLB_X_OR,
    TLB_X_XOR, TLB_X_EQ, TLB_X_NE, TLB_X_LT, TLB_X_LE, TLB_X_GT, TLB_X_GE,
    TLB_X_LAND, TLB_X_LOR, TLB_X_LNOT, TLB_X_NEG, TLB_X_SELECT,
    TLB_X_NOPS
} TlbOp;

typedef struct TlbInsn {
    uint8_t op;          /* TlbOp */
    uint16_t param;      /* TLB_X_PARAM */
    int64_t value;       /* TLB_X_CONST */
} TlbInsn;

typedef struct TlbExpr {
    uint32_t n;
    TlbInsn *code;
} TlbExpr;

/* Pops/pushes of one instruction: 1 for CONST/PARAM, else 1 - arity. */
int tlb_op_arity(TlbOp op);   /* operands popped; -1 for an unknown op */
/* Evaluates a verified expression; args[i] is runtime parameter i as an
 * integer. Returns 0, or -1 on division by zero. */
int tlb_eval(const TlbExpr *e, const int64_t *args, int64_t *out);

/* The largest guard a parameter may have: 2^30. */
#define TLB_GUARD_MAX 30u
/* The guard "this integer equals 1" (a unit stride; version 3 on). */
#define TLB_GUARD_ONE 0x80u

/* A variant's guard is what it assumes of the arguments: guard[i] is the
 * log2 of the multiple runtime parameter i must be — a pointer its
 * address in bytes, an integer its value; 0 for anything (always for
 * floats, bools and @nospecialize integers); TLB_GUARD_ONE: integer i
 * equals 1. A configuration lists its
 * variants in preference order: a runtime launches the first whose guard
 * the arguments meet. A version 1 bundle's variants read as guards too
 * (its assumption bits: 16-byte pointers, integers divisible by 16),
 * ordered most assumptions first. */
/* Guard byte g admits an argument whose value (a pointer's address, an
 * integer sign-extended to 64 bits) is `bits`. */
int tlb_guard_holds(uint8_t g, uint64_t bits);

/* A tensor map (TMA descriptor) a variant's entry takes after its
 * parameters, one `.param .align 64 .b8 [128]` each, in this order. The
 * runtime encodes it at launch (cuTensorMapEncodeTiled) from the
 * arguments: the address of pointer parameter `param` is element
 * [0, ..., 0]; dim and stride are expressions over the integer
 * parameters, like `grid`. Fields past `rank` are 0 (box) and empty
 * expressions (dim, stride). Version 5 on (docs/bundle.md). */
typedef struct TlbTmap {
    uint16_t param;     /* the pointer parameter: address of element [0, ..., 0] */
    uint8_t elem;       /* TlbType of the elements */
    uint8_t rank;       /* 1 .. TLB_TMAP_MAXRANK */
    uint8_t swizzle;    /* 0, 32, 64 or 128: bytes (CU_TENSOR_MAP_SWIZZLE_NONE/32B/64B/128B) */
    uint32_t box[TLB_TMAP_MAXRANK];          /* elements, innermost first */
    TlbExpr dim[TLB_TMAP_MAXRANK];           /* extents in elements, innermost first */
    TlbExpr stride[TLB_TMAP_MAXRANK - 1];    /* of dimensions 1 .. rank-1, in ELEMENTS */
} TlbTmap;

typedef struct TlbVariant {
    const uint8_t *guard;  /* [kernel.nparams] */
    uint32_t dyn_smem;   /* dynamic shared memory bytes the launch passes */
    const char *entry;   /* `.entry` name in the PTX (and cubins) */
    uint16_t l1_programs;  /* version 4: programs per SM whose shared
                              memory the runtime carves out, the rest
                              staying L1; 0: no preference (docs/bundle.md) */
    uint32_t ntmaps;       /* version 5: at most TLB_MAX_TMAPS; older: 0 */
    const TlbTmap *tmaps;  /* [ntmaps]: the entry's parameters after the
                              kernel's, in this order */
    uint8_t flags;         /* version 6: TLB_VARIANT_*; older: 0 */
} TlbVariant;

/* TlbVariant.flags. PERSISTENT: the entry's programs walk the programs
 * of its kernel's grid clause (tilec --persistent, plan/persist.c), each
 * visited once whatever the number launched, on a 1-D grid: libtile
 * launches min(the grid's programs, those resident at once).
 * WARPSPEC: the entry runs a producer warpgroup beside its
 * configuration's warps (tilec --warp-specialize, lower/warpspec.c):
 * libtile launches TLB_WARPSPEC_WARPS warps more. A reader older than
 * the flag rejects the variant as having unknown flags. */
enum { TLB_VARIANT_PERSISTENT = 1u, TLB_VARIANT_WARPSPEC = 2u, TLB_VARIANT_FLAGS = 3u };
enum { TLB_WARPSPEC_WARPS = 4 };

typedef struct TlbConfig {
    uint32_t warps, stages;
    int64_t *cvalues;            /* [kernel.ncparams]: int/bool values, or
                                    the TlbType of a `type` parameter */
    TlbExpr grid[TLB_MAXDIM];    /* [kernel.ngrid] */
    uint32_t nrequire;
    TlbExpr *require;            /* all must be non-zero for this config */
    uint32_t nvariants;
    TlbVariant *variants;
} TlbConfig;

enum { TLB_PARAM_STORED = 1u, TLB_PARAM_NOSPECIALIZE = 2u };

typedef struct TlbParam {
    const char *name;
    uint8_t type;        /* TlbType */
    uint8_t pointee;     /* TlbType, when type == TLB_PTR; else TLB_VOID */
    uint8_t flags;       /* TLB_PARAM_* */
} TlbParam;

enum { TLB_CPARAM_INT = 0, TLB_CPARAM_BOOL = 1, TLB_CPARAM_TYPE = 2 };

typedef struct TlbCparam {
    const char *name;
    uint8_t kind;        /* TLB_CPARAM_* */
    uint8_t type;        /* the declared integer type of an INT parameter */
} TlbCparam;

typedef struct TlbKernel {
    const char *name;
    uint32_t nparams;
    TlbParam *params;
    uint32_t ncparams;
    TlbCparam *cparams;
    uint32_t ntune_key;
    uint32_t *tune_key;          /* runtime parameter indices */
    uint32_t ngrid;              /* 0: the caller gives the grid */
    uint32_t nconfigs;
    TlbConfig *configs;          /* in the source's configuration order */
} TlbKernel;

typedef struct TlbCubin {
    const char *arch;            /* "sm_90a" */
    uint64_t size;
    const uint8_t *image;
} TlbCubin;

typedef struct TlbMem TlbMem;

typedef struct TlbBundle {
    const char *producer;        /* "tilec 0.1.0" */
    const char *arch;            /* the PTX's target, "sm_90" */
    const char *ptx;             /* NUL-terminated module text */
    uint64_t ptx_size;           /* strlen(ptx) */
    uint32_t ncubins;
    TlbCubin *cubins;
    uint32_t nkernels;
    TlbKernel *kernels;
    TlbMem *mem;                 /* owned memory (reader); NULL otherwise */
} TlbBundle;

/* Parses and verifies `size` bytes. On success returns 0 and *out (free it
 * with tlb_free); on failure returns -1 and writes a one-line reason, like
 * "damaged bundle: payload checksum mismatch", into err. Nothing of `data`
 * is kept. Never trusts a count, size or index it reads. */
int tlb_read(const void *data, size_t size, TlbBundle **out, char *err,
             size_t errlen);
void tlb_free(TlbBundle *b);
/* Checks the header alone, in the first `size` bytes of a file (fewer
 * than TLB_HEADER_SIZE: truncated, unless they already show it is no
 * bundle): magic, version, checksum, flags. 0 with *payload the payload
 * size it declares, or -1 with err as tlb_read writes it. A reader of a
 * stream calls it before reading (or allocating) the rest. */
int tlb_read_header(const void *data, size_t size, uint64_t *payload, char *err,
                    size_t errlen);

/* Serializes b into a malloc'd buffer (*data, *size). Returns 0, or -1
 * with a reason in err when b breaks the format's rules (the same ones the
 * reader verifies: a bad expression, an entry name that is empty, ...). */
int tlb_write(const TlbBundle *b, void **data, size_t *size, char *err,
              size_t errlen);

/* CRC-32C (Castagnoli), as the format uses it. */
uint32_t tlb_crc32c(uint32_t crc, const void *data, size_t n);

/* Parses "sm_90" / "sm_90a" into 90 and the arch-specific flag; -1 when
 * the text is not of that form. */
int tlb_parse_arch(const char *arch, int *arch_specific);

#endif
