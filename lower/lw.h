/*
 * lw.h — the code generator's internal header: one LwCtx per compilation
 * (an LLVM context and module holding every entry; split.c makes one more
 * per part it optimizes on a thread), one LwFn per kernel function being
 * built.
 *
 * The model every file of lower/ shares: a tile value lives in registers.
 * Its layout (plan/layout.h) says which element each register of each
 * thread holds; the lowering keeps, per IR value, an array of LLVM values,
 * one per register of the layout (LwVal). A scalar (rank 0) has one
 * register and every thread holds it: scalars are uniform across the
 * program, which is what lets structured control flow on scalar
 * conditions contain barriers.
 *
 * Whatever crosses threads goes through a few shared helpers: warp
 * shuffles (lw_shfl, reduce.c), and one shared-memory scratch buffer per kernel
 * (lw_smem_*), sized by the largest user and reported per entry.
 */
#ifndef TILE_LW_H
#define TILE_LW_H

#include "base/base.h"
#include "lower/lower.h"
#include "sema/ir.h"
#include "plan/layout.h"

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/TargetMachine.h>

#include "lower/lw_target.h"
#define LW_AS_GLOBAL 1
#define LW_AS_SHARED 3
#define LW_CC_PTX_KERNEL 71   /* LLVM's ptx_kernel calling convention: an entry */

/* fn is an entry: a kernel function defined here (kernel.c makes them). */
static inline int lw_is_entry(LLVMValueRef fn) {
    return !LLVMIsDeclaration(fn) && LLVMGetFunctionCallConv(fn) == LW_CC_PTX_KERNEL;
}

/* A lowered IR value: n registers (n == 1 for scalars). */
typedef struct LwFrag LwFrag;   /* smem.c: an operand read by ldmatrix */
typedef struct LwMagic LwMagic; /* divide.c: an inverted divisor */

typedef struct LwVal {
    int n;
    LLVMValueRef *r;
} LwVal;

typedef struct LwCtx {
    Arena *ar;
    Diag *dg;
    const LwOptions *opt;
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMTargetMachineRef tm;
    LLVMBuilderRef b;
    LLVMDIBuilderRef di;       /* with -g */
    LLVMMetadataRef di_cu;
    Vec(LLVMMetadataRef) di_files;   /* per Diag file index, lazily */
    int part;                  /* split.c: which part of the module (0: the
                                  first, or the whole) */
    /* common types */
    LLVMTypeRef i1, i8, i16, i32, i64, f16, bf16, f32, f64, vd;
    LLVMTypeRef gptr, sptr, gen_ptr;  /* ptr addrspace(1), (3), (0) */
} LwCtx;

/* A thread part T(lane, warp) computed once per kernel (layout.c). */
typedef struct LwTpart {
    uint32_t lane[LY_MAXBITS], warp[LY_MAXBITS];
    LLVMValueRef v;
} LwTpart;

typedef struct LwFn {
    LwCtx *c;
    const IrKernel *k;
    const LyResult *ly;
    const LyPlan *plan;        /* how each op is done, the rings (plan/lowering.c) */
    LLVMValueRef fn;
    LwVal *vals;               /* by IrValue id */
    const int *uses;           /* number of uses, by IrValue id (the plan's) */
    LLVMValueRef lane, warp;   /* i32 */
    LLVMValueRef entry_br;     /* end of the prologue (entry block) */
    Vec(LwTpart) tparts;       /* thread parts computed in the prologue */
    LLVMValueRef smem;         /* placeholder global for the scratch */
    int64_t smem_bytes;        /* largest scratch use */
    int smem_users;            /* scratch requests so far (lw_smem) */
    int64_t smem_pinned;       /* largest scratch use while cp.async rings
                                  are live: the rings go above it, the
                                  rest of the scratch may overlap them */
    LLVMValueRef tmap[LY_MAX_TMAPS];  /* the tensor-map parameters (the
                                  plan's LyPlan.tmaps, kernel.c) */
    LLVMValueRef ring;         /* placeholder: cp.async rings (pipeline.c),
                                  placed after the scratch at the end */
    struct LwPipe *pipe;       /* pipelined loops being lowered, innermost
                                  first */
    LwFrag **frag;             /* by IrValue id: a ring operand whose
                                  ldmatrix the product using it emits
                                  (pipeline.c, dot.c; NULL until one) */
    LwEntry *entry;            /* what is reported of it (pipeline.c
                                  records loops it could not pipeline) */
    uint8_t *nc;               /* by IrValue id of a load's result: 1 if
                                  it may read through the non-coherent
                                  path (memory.c; NULL until the first
                                  load) */
    LwMagic **magic;           /* by IrValue id: an inverted divisor's
                                  constants (divide.c; allocated when the
                                  plan inverts any) */
    LLVMValueRef **maskw;      /* by IrValue id: a realigned access's
                                  mask packed 32 bits a word where it is
                                  defined (memory.c lw_pack_mask; NULL
                                  when the plan realigned nothing) */
    int pins;                  /* opaque copies of those words so far */
    LLVMMetadataRef di_sp;     /* subprogram, with -g */
    int loops;                 /* for/while ops lowered so far (memory.c
                                  predicates stores only before any) */
    int failed;                /* an error was reported */
    const LyPipe *ws;          /* a consumer of warp specialization: the
                                  loop whose copies the producer issues
                                  (warpspec.c); NULL: none, or not yet */
} LwFn;

/* ---- base.c: the helpers every file shares */
LLVMTypeRef lw_type(LwCtx *c, ScalarKind k);       /* register type */
LLVMTypeRef lw_mem_type(LwCtx *c, ScalarKind k);   /* in memory (bool: i8) */
/* A value of kind k from its register form to its memory form and back
 * (a bool is an i1 in registers, a byte in memory). */
LLVMValueRef lw_to_mem(LwFn *f, LLVMValueRef v, ScalarKind k);
LLVMValueRef lw_from_mem(LwFn *f, LLVMValueRef v, ScalarKind k);
LLVMValueRef lw_intrinsic(LwCtx *c, const char *name, LLVMTypeRef *over,
                          int nover);
LLVMValueRef lw_call(LwCtx *c, LLVMValueRef fn, LLVMValueRef *args, int n);
LLVMValueRef lw_call_intr(LwCtx *c, const char *name, LLVMTypeRef *over,
                          int nover, LLVMValueRef *args, int n);
/* What an inline-asm call may do to memory. */
typedef enum LwAsmMem {
    LW_ASM_NONE,               /* touches none: LLVM may merge and drop it */
    LW_ASM_READS,              /* reads: kept before later stores */
    LW_ASM_WRITES,             /* writes (sideeffect, ~{memory}): kept in
                                  order with every other memory access */
} LwAsmMem;
/* A call of inline asm `text` (constraints `cons`, args' types, any
 * number) returning rt, with what it may do to memory: LW_ASM_WRITES
 * also keeps it where it is (sideeffect; `cons` names ~{memory} when it
 * touches memory). */
LLVMValueRef lw_asm(LwCtx *c, LLVMTypeRef rt, const char *text, const char *cons,
                    LLVMValueRef *args, int n, LwAsmMem mem);
/* i32 v through a copy LLVM cannot see through (`mov.b32`, an asm
 * without effects): what it computed stays computed as written (an
 * address kept in 32 bits, a narrow operand widened), and a use of the
 * copy is not rewritten in terms of v. Copies of one value with the same
 * `note` (a comment in the asm; NULL: none) are one; a distinct note
 * keeps each apart. */
LLVMValueRef lw_opaque32(LwCtx *c, LLVMValueRef v, const char *note);
/* The largest (largest != 0) or smallest value of integer or bool kind k. */
LLVMValueRef lw_int_limit(LwCtx *c, ScalarKind k, int largest);
LLVMValueRef lw_i32(LwCtx *c, int64_t v);
LLVMValueRef lw_libdevice(LwCtx *c, const char *name, LLVMTypeRef ret,
                          LLVMTypeRef *params, int n);
void lw_error(LwFn *f, Loc l, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
LwVal *lw_val(LwFn *f, const IrValue *v);        /* an IR value's registers */
void lw_set(LwFn *f, const IrValue *v, LwVal x);
/* memory.c: which values are realigned accesses' masks, once per kernel
 * (sets f->maskw); lw_set calls lw_pack_mask for every value set, which
 * packs such a mask where it is defined. */
void lw_masks_to_pack(LwFn *f);
void lw_pack_mask(LwFn *f, const IrValue *v, LwVal x);
LwVal lw_new_val(LwFn *f, int n);
int lw_nregs(const IrValue *v);
/* kernel.c: the registers of arange op (rotated or not) as layout l holds
 * them (a gather's index, computed where the gather reads it). */
LwVal lw_arange_in(LwFn *f, const IrOp *op, const Layout *l);
LLVMBasicBlockRef lw_new_bb(LwFn *f, const char *name);
/* Code that runs only where `cond` (i1) holds: branches to a new block
 * `name` and returns the block, `join_name`, that lw_join ends it with
 * (a branch there) and continues in. */
LLVMBasicBlockRef lw_only_if(LwFn *f, LLVMValueRef cond, const char *name,
                             const char *join_name);
void lw_join(LwFn *f, LLVMBasicBlockRef join);
/* Warp shuffles of a value of any register type (64-bit: two 32-bit
 * shuffles; pointers as i64): bfly reads lane ^ `lane`, up reads
 * lane - `lane` (its own value below lane 0), idx reads lane `lane`. */
typedef enum { LW_SHFL_BFLY, LW_SHFL_UP, LW_SHFL_IDX } LwShfl;
LLVMValueRef lw_shfl(LwFn *f, LwShfl mode, LLVMValueRef v, LLVMValueRef lane);
LLVMValueRef lw_shfl_xor(LwFn *f, LLVMValueRef v, int mask);

/* ---- kernel.c: functions, regions */
void lw_block(LwFn *f, const IrBlock *b);
/* Integer scalar v's register, widened to i64 by its signedness. */
LLVMValueRef lw_to_i64(LwFn *f, const IrValue *v);
void lw_kernel(LwCtx *c, const IrKernel *k, const LyResult *ly, const LyPlan *plan,
               const LyFacts *facts, const char *name, LwEntry *entry);

/* ---- divide.c: integer `/` and `%` by a divisor inverted once */
struct LwMagic {
    int sgn;                   /* signed division */
    LLVMValueRef d;            /* the divisor, 1 where it is 0 */
    LLVMValueRef m;            /* the multiplier, N bits */
    LLVMValueRef s1, s2;       /* signed: the shift and the divisor's sign
                                  (0 or -1); unsigned: the two shifts */
};
/* The constants of divisor d (an integer of N bits, any N up to 32),
 * built at the builder's position. */
LwMagic *lw_magic(LwCtx *c, LLVMValueRef d, int sgn);
/* n / d (rem: n % d) by mg's divisor, with the plain division's results. */
LLVMValueRef lw_magic_div(LwCtx *c, const LwMagic *mg, int rem, LLVMValueRef n);
/* The high half of the double-width product of x and y (signed or not). */
LLVMValueRef lw_mulhi(LwCtx *c, LLVMValueRef x, LLVMValueRef y, int sgn);
/* Right after value v (marked by the plan) is defined. */
void lw_magic_setup(LwFn *f, const IrValue *v);
/* One element of integer `/` or `%` op, n its numerator, when the plan
 * inverted its divisor; else NULL. */
LLVMValueRef lw_magic_divrem(LwFn *f, const IrOp *op, LLVMValueRef n);

/* ---- elementwise.c */
/* The case labels of the ops elementwise.c lowers, one register at a
 * time, every operand in the result's layout (lw_op, scratch.c). */
#define LW_ELEMENTWISE_CASES                                                    \
    case IR_CAST: case IR_ADD: case IR_SUB: case IR_MUL: case IR_DIV:          \
    case IR_REM: case IR_AND: case IR_OR: case IR_XOR: case IR_SHL:            \
    case IR_SHR: case IR_MIN: case IR_MAX: case IR_POW: case IR_UMULHI:        \
    case IR_CMP: case IR_NEG: case IR_NOT: case IR_ABS: case IR_EXP:           \
    case IR_EXP2: case IR_LOG: case IR_LOG2: case IR_SQRT: case IR_RSQRT:      \
    case IR_SIN: case IR_COS: case IR_TANH: case IR_ERF: case IR_FLOOR:        \
    case IR_ROUND: case IR_RINT: case IR_TRUNC: case IR_TAN: case IR_ATAN2:    \
    case IR_LIBDEVICE: case IR_BITCAST: case IR_CEIL: case IR_FMA: case IR_SELECT: case IR_PTRADD
void lw_elementwise(LwFn *f, const IrOp *op);
LLVMValueRef lw_cast_scalar(LwFn *f, LLVMValueRef x, ScalarKind from,
                            ScalarKind to);
/* Sets `contract` on every float add/sub/mul/neg of the module (see
 * elementwise.c): run once libdevice is linked, before optimizing. */
/* lower.c: c->tm for the options; c's common types; the optimization and
 * PTX emission of c->mod (the whole module or a part of it). */
int lw_target_machine(LwCtx *c, LLVMTargetRef target);
void lw_set_types(LwCtx *c);
int lw_optimize_emit(LwCtx *c, char **ptx, size_t *ptx_len, char **llvm);

/* split.c: emits out->ptx from parts of c->mod on threads, where the
 * module holds entries of several configurations and neither debug info
 * nor the LLVM IR is wanted: 0, or -1 after an error; 1 where it does not
 * apply (the caller emits the module whole). lw_rename_part_locals gives
 * the internal symbols of a part after the first a suffix of its own,
 * so that the parts' PTX joins without clashes. */
int lw_split_emit(LwCtx *c, LwOutput *out);
void lw_rename_part_locals(LwCtx *c);

void lw_allow_contract(LwCtx *c);
/* narrow.c: i8/i16 arithmetic of the optimised module rebuilt on i32 (a
 * ptxas workaround; the file says why). */
void lw_widen_narrow_ints(LwCtx *c);

/* ---- layout.c: coordinates, register maps, shared memory */
/* Coordinate of register r along dimension d, for this thread (i32). */
/* A 1-D layout whose register bits and thread (lane, warp) bits are
 * disjoint holds in register r the position lw_thread_coord + *reg (a
 * sum: no carries); lw_reg_const returns 0 for any other layout. */
int lw_reg_const(const Layout *l, int r, uint32_t *reg);
/* R(r): the XOR of layout l's register basis vectors of r's set bits
 * (the part of register r's packed coordinate that is a constant). */
uint32_t lw_reg_part(const Layout *l, int r);
LLVMValueRef lw_thread_coord(LwFn *f, const Layout *l);
LLVMValueRef lw_coord(LwFn *f, const Layout *l, int r, int d);
/* The packed coordinate held by register r of this thread (i32). */
LLVMValueRef lw_packed_coord(LwFn *f, const Layout *l, int r);
/* Moves `src` (layout sl, shape ss) to layout dl (shape ds) where the
 * element at packed destination coordinate y is source element proj(y)
 * (proj a linear map over packed coordinates; NULL: identity). */
LwVal lw_remap(LwFn *f, LwVal src, ScalarKind k, const Layout *sl,
               const Layout *dl, const LyMap *proj);
/* IR value v in layout l (converted, or replicated when v is a scalar). */
LwVal lw_in_layout(LwFn *f, const IrValue *v, const Layout *l);
/* The scratch bytes lw_remap, lw_in_layout and lw_shape_op take for the
 * same arguments (0: registers or shuffles): pure, for scratch.c. */
int64_t lw_remap_scratch(const Layout *sl, const Layout *dl, const LyMap *proj,
                         ScalarKind k);
int64_t lw_in_layout_scratch(const IrValue *v, const Layout *l);
int64_t lw_shape_scratch(const IrOp *op);
/* Threads of more than one lane or warp hold the same element of l. */
int lw_replicated(const Layout *l, int warps);
/* A shape op, or a conversion by the generic remap. */
void lw_shape_op(LwFn *f, const IrOp *op);
/* Per-thread predicate: this thread is the first holder (lowest lane and
 * warp) of the elements it holds in register r: i1 (NULL for "always"). */
LLVMValueRef lw_owner(LwFn *f, const Layout *l, int r, int *first_reg);
/* p AND "register r of l holds an element of v, not padding" (ir.h,
 * ty_pad: coordinate < extent along each padded axis of v's type; l has
 * v's padded shape). NULL when both are "always". */
LLVMValueRef lw_pad_and(LwFn *f, const IrValue *v, const Layout *l, int r,
                        LLVMValueRef p);
/* p is the constant false (lw_pad_and: a register wholly in the padding). */
int lw_never(LLVMValueRef p);
LLVMValueRef lw_smem(LwFn *f, int64_t bytes);
/* The scratch as a staging area of elements of kind k, one in 32 padded:
 * its bytes for n elements; src (layout sl) written at element base + its
 * packed coordinate (one copy of each element); element i read back. */
int64_t lw_smem_elems_bytes(int64_t n, ScalarKind k);
void lw_smem_put(LwFn *f, LwVal src, ScalarKind k, const Layout *sl, int64_t base);
LLVMValueRef lw_smem_get(LwFn *f, ScalarKind k, LLVMValueRef i);
/* The scratch's padding: one element every 32, and q more every 2^p
 * (q = 0: none), so slot(y) = y + (y >> 5) + (y >> p) * q. Increasing in
 * y (so one to one), and additive over disjoint bits: slot(a | b) =
 * slot(a) + slot(b) when a & b = 0. */
typedef struct LwPad { int p, q; } LwPad;
#define LW_PAD_DEFAULT ((LwPad){5, 0})
uint32_t lw_pad_const(LwPad d, uint32_t y);
uint32_t lw_padded_const(uint32_t y);   /* lw_pad_const(LW_PAD_DEFAULT, y) */
/* The barrier a scratch user crosses before writing: every thread is
 * done reading what the previous user left. None for the kernel's first
 * user outside any loop (nothing came before; inside a loop the next
 * iteration's use would follow this one's reads). */
void lw_scratch_barrier(LwFn *f);
void lw_barrier(LwFn *f);

/* ---- memory.c */
void lw_load(LwFn *f, const IrOp *op);
/* The scratch a load (not from a ring), store or atomic takes. */
int64_t lw_memory_scratch(const IrOp *op, const int *uses, int warps);
void lw_store(LwFn *f, const IrOp *op);
void lw_atomic(LwFn *f, const IrOp *op);

/* ---- gather.c: slice, cat, gather (through the scratch) */
void lw_move(LwFn *f, const IrOp *op);
int64_t lw_move_scratch(const IrOp *op);

/* ---- sort.c: sort along an axis (a bitonic network) */
void lw_sort(LwFn *f, const IrOp *op);
int64_t lw_sort_scratch(const IrOp *op);

/* ---- reduce.c */
void lw_reduce(LwFn *f, const IrOp *op);
void lw_scan(LwFn *f, const IrOp *op);
/* The scratch they take (pure, for scratch.c). */
int64_t lw_reduce_scratch(Arena *ar, const IrOp *op);
int64_t lw_scan_scratch(Arena *ar, const IrOp *op, int warps);

/* ---- scratch.c: the shared memory an entry takes (its scratch and its
 * rings), from the IR, its layouts and the plan, before lowering */
int64_t lw_planned_shared(Arena *ar, const IrKernel *k, const LyPlan *plan);

/* ---- warpspec.c: warp specialization (tilec --warp-specialize) */
enum { LW_WS_WARPS = 4 };   /* the producer warpgroup's */
/* Sets p's ws_loop and ws_need where kernel k takes a producer
 * warpgroup and its shared memory stays within max_shared; 1 if so. */
int lw_ws_plan(Arena *ar, const IrKernel *k, LyPlan *p, int64_t max_shared);
/* At the kernel's entry (f->plan->ws_loop set): the mbarriers, the
 * producer's branch, lowered to its end; the builder then continues in
 * the consumers' (f->ws set). */
void lw_ws_split(LwFn *f);
/* layout.c: whether shape op `op`, or value v brought into layout l,
 * moves no element between threads (warpspec.c: the producer's ops). */
int lw_shape_in_thread(const IrOp *op);
int lw_in_layout_in_thread(const IrValue *v, const Layout *l);

/* ---- dot.c: matrix products (mma.sync, or FMA chains) */
int lw_dot(LwFn *f, const IrOp *op);

/* ---- smem.c: conversions the plan sends through swizzled buffers: to
 * mma operands read by ldmatrix (LY_HOW_LDMATRIX), out of an MMA
 * accumulator layout (the epilogue's, LY_HOW_SWIZZLED) */
void lw_dot_operand(LwFn *f, const IrOp *op);
void lw_acc_convert(LwFn *f, const IrOp *op);
Layout *lw_offset_layout(Arena *ar, const Layout *l, const LySmem *s);
/* The address of register r's element of offset layout ol (elements of
 * esize bytes) in a buffer at `base`: base + T ^ R(r), with the bits of
 * R(r) that no thread varies added as a constant (an immediate offset) */
LLVMValueRef lw_smem_addr(LwFn *f, LLVMValueRef base, const Layout *ol, int r,
                          int esize);
/* Operand layout dl read from the swizzled buffer s at `base` (ldmatrix
 * where it can, else element by element). */
LwVal lw_read_operand(LwFn *f, LLVMValueRef base, ScalarKind k,
                      const Layout *dl, const LySmem *s);
/* The same, read later and piecewise (a pipelined operand whose only
 * users are products, dot.c): NULL where ldmatrix cannot read it.
 * With `split`, no ldmatrix reads registers of two K sub-steps (x2 or
 * x1 where an x4 would: a loop carries only the first sub-step's).
 * lw_frag_load emits (once) the ldmatrix of every group holding a
 * register whose K coordinate lies in [k0, k1); lw_frag_val's registers
 * of groups not read yet are NULL. */
/* Tile src (layout sl) stored into buffer s at base: vectors of up to
 * 16 bytes, each element once. */
void lw_store_smem(LwFn *f, LLVMValueRef base, LwVal src, ScalarKind k,
                   const Layout *sl, const LySmem *s);
LwFrag *lw_frag_operand(LwFn *f, LLVMValueRef base, ScalarKind k,
                        const Layout *dl, const LySmem *s, int split);
void lw_frag_load(LwFn *f, LwFrag *z, int32_t k0, int32_t k1);
LwVal lw_frag_val(const LwFrag *z);
/* Its 32-bit ldmatrix results (lw_frag_nraw of them; NULL: not read),
 * and the same given from elsewhere (loop-carried: pipeline.c), which
 * reads the groups they complete. */
int lw_frag_nraw(const LwFrag *z);
LLVMValueRef *lw_frag_raw(LwFrag *z);
void lw_frag_set_raw(LwFn *f, LwFrag *z, LLVMValueRef *raw);

/* ---- pipeline.c: cp.async software pipelining of `for` loops */
struct LwPipe *lw_pipe_begin(LwFn *f, const IrOp *loop, LLVMValueRef lo,
                             LLVMValueRef hi, LLVMValueRef step);
void lw_pipe_iter(LwFn *f, struct LwPipe *p, LLVMValueRef iv);
void lw_pipe_iter_end(LwFn *f, struct LwPipe *p);
void lw_pipe_end(LwFn *f, struct LwPipe *p);
/* The ring region's placeholder, made once per kernel. */
void lw_ring_region(LwFn *f);
/* Warp specialization's producer loop (warpspec.c): for each iteration
 * of `loop`, the release's wait and the copies of its TMA rings, with
 * the values of LyPlan.ws_need outside the loop already lowered. */
void lw_pipe_produce(LwFn *f, const IrOp *loop);
/* TMA rings (tma.c), for pipeline.c: the slots' mbarriers initialized
 * (thread 0, then a barrier); the coordinates of each ring's copy (by
 * ring: x, y, batch) for the iteration whose index tiles are lowered,
 * pinned where computed when `pin` (a copy with side effects); slot
 * `slot`'s copies issued with those coordinates (NULL: computed here;
 * thread 0; not where `valid`, when given, is false; released slots:
 * after the readers' phase of parity `freed` completed, when given); a
 * slot counted released (LY_RELEASE_LAST: this warp is done with slot
 * `slot`, and the warp that completes the count refills it, where
 * `valid`, when given, holds); the wait for slot `slot`'s phase of
 * parity `phase`; a warp's release of slot `slot` (lane 0, where `cond`,
 * when given, holds); the barrier and invalidation at the loop's end. */
void lw_tma_init(LwFn *f, const LyPipe *q);
LLVMValueRef (*lw_tma_coords(LwFn *f, const LyPipe *q, int pin))[3];
void lw_tma_issue(LwFn *f, const LyPipe *q, LLVMValueRef slot, LLVMValueRef valid,
                  LLVMValueRef freed, LLVMValueRef (*coord)[3]);
void lw_tma_refill_last(LwFn *f, const LyPipe *q, LLVMValueRef slot, LLVMValueRef valid,
                        LLVMValueRef (*coord)[3]);
void lw_tma_wait(LwFn *f, const LyPipe *q, LLVMValueRef slot, LLVMValueRef phase);
void lw_tma_release(LwFn *f, const LyPipe *q, LLVMValueRef slot, LLVMValueRef cond);
void lw_tma_end(LwFn *f, const LyPipe *q);
/* A store written by TMA (tma.c; plan LyTmaStore): its tile into the
 * scratch, one thread's bulk copies out; the issuing thread's wait for
 * its bulk stores to have read the scratch (lw_scratch_barrier, before
 * the scratch is written again, and the program's end). */
void lw_tma_store(LwFn *f, const LyTmaStore *ts);
void lw_tma_store_read_wait(LwFn *f);
/* ---- pingpong.c: warpgroups taking turns at a loop's products (plan
 * LyPipe.pingpong). _begin before the loop, _end after it; lw_pipe_turn
 * around each of its products: before the wgmma fence (end = 0, wait
 * for the turn) and after the commit (end = 1, hand it on). */
void lw_pingpong_begin(LwFn *f, const LyPipe *q);
void lw_pingpong_end(LwFn *f);
void lw_pingpong_turn(LwFn *f, const LyPipe *q, int end);
void lw_pipe_turn(LwFn *f, const IrOp *dot, int end);
/* When `dot` runs as wgmma in the innermost pipelined loop (sm_90a):
 * the base of each operand's buffer (the read slot of its ring, or its
 * stage buffer, published by a barrier here; NULL: A in registers) and
 * that buffer's layout,
 * and in *pending whether the product's group may stay in flight after
 * it (1) or must be waited for (0); returns 1. Else 0. */
int lw_pipe_wgmma(LwFn *f, const IrOp *dot, LLVMValueRef base[2],
                  const LySmem *s[2], int *pending);
/* ---- dot.c */
/* Product op as warpgroup MMA groups reading its shared operands at
 * base (buffers s; s[0] NULL: A from registers) into a copy of acc, then
 * one commit: *out, in flight until lw_wgmma_wait. 0 on a reported
 * error. */
int lw_wgmma_product(LwFn *f, const IrOp *op, LLVMValueRef base[2], const LySmem *s[2],
                     LwVal acc, LwVal *out);
/* When `dot` is the product its loop's plan issues one iteration ahead
 * (LyPipe.early): sets its value to the group issued then, and issues
 * the next iteration's; 0 otherwise. */
int lw_pipe_early(LwFn *f, const IrOp *dot);
/* wgmma.wait_group n, acc's registers tied through it so that nothing
 * reads them before it (the values it returns are acc's). */
LwVal lw_wgmma_wait(LwFn *f, LwVal acc, int n);
/* The pipelined loop's copies: their TMA coordinates before product
 * `dot`'s wait where they can be, the copies after it (pipeline.c). */
void lw_pipe_prepare_copy(LwFn *f, const IrOp *dot);
void lw_pipe_late_copy(LwFn *f, const IrOp *dot);
/* The then-arm of an `if` that alone reads a product whose group is in
 * flight (plan drain_if): _begin, at the arm's top, waits for the group
 * and gives the arm the waited registers (1; 0 when `ifop` is no such
 * `if`); _end gives the else-arm the registers in flight again. */
int lw_pipe_drain_begin(LwFn *f, const IrOp *ifop, LwVal *in_flight);
void lw_pipe_drain_end(LwFn *f, const LwVal *in_flight);
/* A conversion of such a product that only that arm reads (plan
 * drain_cvt): lowered there, after the wait, not where it stands (1). */
int lw_pipe_deferred(LwFn *f, const IrOp *cvt);
/* A ring's load (emits nothing) and its conversion (LY_HOW_RING): read
 * from the slot of the current iteration. */
void lw_pipe_load(LwFn *f, const IrOp *op);
void lw_pipe_operand(LwFn *f, const IrOp *op);
/* Product `dot`'s A when the plan reads it from its ring into registers
 * (LyPipe.reg_a): read now, behind a wait for the group in flight, whose
 * accumulator (*acc, the product's) it then gives. */
void lw_pipe_reg_a(LwFn *f, const IrOp *dot, LwVal *acc);
/* A conversion into its loop's stage buffer (LY_HOW_STAGE): the source's
 * registers stored for the products' descriptors. */
void lw_pipe_stage(LwFn *f, const IrOp *op);
/* Called by a product before the mma.sync of its last K sub-step: where
 * the loop carries its first sub-step's fragments, the wait, the
 * barrier and the ldmatrix of the next slot's first sub-step. */
void lw_pipe_last_step(LwFn *f, const IrOp *dot);
/* kernel.c: one op (pipeline.c re-evaluates address computations) */
void lw_op(LwFn *f, const IrOp *op);

/* ---- debug.c */
void lw_print(LwFn *f, const IrOp *op);
void lw_assert(LwFn *f, const IrOp *op);
void lw_set_loc(LwFn *f, Loc l);
void lw_di_kernel(LwFn *f, const char *name);
void lw_di_init(LwCtx *c, const char *file);

#endif
