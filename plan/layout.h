/*
 * layout.h — how every tile is spread over the threads of a program:
 * layouts as linear maps over F2, axis info, and the layout assignment pass.
 *
 * This header is the contract between the analyses (plan/linear.c,
 * plan/axis.c, plan/layout_assign.c) and the lowering (lower/).
 *
 * Layouts as linear maps. Every tile dimension, the vector of registers a
 * thread holds, the 32 lanes of a warp and the warps of a program are
 * powers of two, so a layout is a map from the bits of a hardware index
 * (register r, lane l, warp w) to the bits of a tile coordinate that is
 * linear over F2 (addition is XOR): the coordinate held by (r, l, w) is the
 * XOR of the basis vectors of the set bits of r, l and w. A Layout stores
 * one basis vector per input bit (basis[LY_REG][i] is where register bit i
 * goes). Coordinates are packed into one integer, the row-major linear
 * index of the element: dimension rank-1 in the lowest bits (see
 * ly_pack/ly_unpack). A zero basis vector means that bit of the hardware
 * index does not change the element: those threads (or registers) hold
 * copies (broadcast). Every layout built here is surjective: each element
 * of the tile is held by at least one (r, l, w).
 *
 * Layouts also remember how they were built (kind: blocked, slice or plain
 * linear), which is what they print as and what the assignment pass
 * reasons with; the map is what the lowering and every query use. Two
 * layouts are the same (ly_eq) when their maps are equal, whatever their
 * kind.
 *
 * Values. After ly_assign_kernel(), IrValue.layout of every tile value
 * (rank >= 1) points at its Layout; scalars (rank 0) have NULL. All
 * layouts of one kernel have the same number of lanes (32) and warps
 * (IrKernel.warps).
 *
 * Axis info. ax_analyze() computes, per value and per dimension, the
 * contiguity, divisibility and constancy of its elements under the
 * assumptions of one specialization variant; the pass keeps the table so
 * that the lowering can ask for the vector width of each load and store
 * (ly_mem_vec). See docs/internals/layout.md and docs/internals/axis.md.
 */
#ifndef TILE_LAYOUT_H
#define TILE_LAYOUT_H

#include "sema/ir.h"

/* ------------------------------------------------------------ linear maps */

/* The input dimensions of a layout: the hardware index. */
typedef enum { LY_REG, LY_LANE, LY_WARP, LY_NIN } LyIn;

/* At most this many bits per input dimension (a tile holds at most 2^20
 * elements, a program at most 32 warps). */
#define LY_MAXBITS 24

typedef enum {
    LY_BLOCKED,   /* spt/tpw/wpc/order below */
    LY_SLICE,     /* parent with dimension slice_dim removed */
    LY_LINEAR,    /* only the map (reshape results, permuted MMA layouts) */
    LY_MMA,       /* mma.sync accumulator (plan/mma.c): mma_k, mma_warps */
    LY_DOT_OP,    /* operand op_idx of a dot whose accumulator layout is
                     `parent` (LY_MMA: registers as ldmatrix gives them;
                     LY_BLOCKED: the FMA path's broadcast operands) */
} LyKind;

typedef struct Layout {
    uint8_t kind;                    /* LyKind */
    uint8_t rank;                    /* rank of the tile (>= 1) */
    int32_t shape[IR_MAXRANK];       /* the tile's shape, powers of two */
    uint8_t nbits[LY_NIN];           /* log2 of registers/lanes/warps */
    uint32_t basis[LY_NIN][LY_MAXBITS]; /* packed coordinate per input bit */

    /* LY_BLOCKED: the Triton-style parameters (per tile dimension):
     * size per thread, threads per warp, warps per program; order[0] is
     * the fastest-varying dimension. The map repeats the
     * spt*tpw*wpc "program tile" over registers where the shape is larger
     * and broadcasts (zero lane/warp bases) where it is smaller. */
    int32_t spt[IR_MAXRANK], tpw[IR_MAXRANK], wpc[IR_MAXRANK];
    uint8_t order[IR_MAXRANK];

    /* LY_SLICE: this layout is `parent` (rank + 1) with dimension
     * slice_dim removed: what a reduction over slice_dim leaves. */
    const struct Layout *parent;
    int slice_dim;

    /* LY_MMA: the instruction is mma.sync m16n8k<mma_k>; mma_warps[0]
     * warps split M and mma_warps[1] split N (their product is the
     * program's warps). */
    int32_t mma_k;
    int32_t mma_warps[2];
    /* LY_MMA on sm_90a: the product may run as wgmma (warpgroup MMA,
     * m64nNk16, operands read from shared memory by descriptors) when
     * the lowering finds both operands in cp.async rings; the map is the
     * same (every warp on M, mma_warps = [warps, 1]), so mma.sync remains
     * the fallback. */
    uint8_t wgmma;
    /* LY_MMA: per dimension (0: M, 1: N), 1 when its bits are permuted
     * (ly_mma_low): an operand stored along that dimension (TF32 A along
     * M, B along N) is then read 16 bytes at a time. */
    uint8_t mma_low[2];
    /* LY_DOT_OP: 0 for A ([M, K]), 1 for B ([K, N]); `parent` is the
     * accumulator's layout (shape [M, N]). kwidth: consecutive K elements
     * per 32-bit register (32 / element bits) for an MMA parent, 0 for
     * the FMA path. */
    int op_idx, kwidth;
} Layout;

/* A hardware index. */
typedef struct LyIndex {
    uint32_t reg, lane, warp;
} LyIndex;

/* log2 of a power of two (-1 when n is not one). */
int ly_log2(int64_t n);

/* Packs coordinate c[0..rank) of a tile of `shape` into its row-major
 * linear index, and back. */
uint32_t ly_pack(int rank, const int32_t *shape, const int32_t *c);
void ly_unpack(int rank, const int32_t *shape, uint32_t packed, int32_t *c);

/* Blocked layout of a tile of `shape` over `warps` warps of 32 lanes.
 * spt, tpw, wpc are per dimension (powers of two; prod(tpw) == 32,
 * prod(wpc) == warps); order is a permutation, fastest dimension first.
 * Returns NULL when the parameters are inconsistent. */
Layout *ly_blocked(Arena *ar, int rank, const int32_t *shape,
                   const int32_t *spt, const int32_t *tpw,
                   const int32_t *wpc, const uint8_t *order);

/* The default blocked layout Triton would pick for a tile: `vec` elements
 * per thread along order[0] (capped by the shape), lanes then warps laid
 * along the dimensions in `order`, the last one taking what is left. */
Layout *ly_blocked_default(Arena *ar, int rank, const int32_t *shape,
                           int warps, int vec, const uint8_t *order);

/* The invariants every layout keeps, checked (as Triton's LinearLayout
 * checks its own): rank 1..IR_MAXRANK, power-of-two extents, at most 2^20
 * elements, at most LY_MAXBITS bits per input, every basis vector a
 * coordinate inside the tile, and surjective (the basis vectors span
 * every coordinate: each element is held by some register of some lane
 * of some warp). With warps > 0 also 32 lanes and `warps` warps (every
 * layout of a kernel's values). NULL, or what is wrong. */
const char *ly_check(const Layout *l, int warps);

/* The slice of `parent` that removes dimension `dim` (the layout of a
 * reduction's result over `dim`). Lanes and warps that walked `dim` become
 * broadcast (zero bases); registers that walked it are dropped. */
Layout *ly_slice(Arena *ar, const Layout *parent, int dim);

/* A plain linear layout from explicit bases (copied); the map is taken as
 * given (kind LY_LINEAR). */
Layout *ly_linear(Arena *ar, int rank, const int32_t *shape,
                  const uint8_t nbits[LY_NIN],
                  const uint32_t basis[LY_NIN][LY_MAXBITS]);

/* The same layout family at another shape of the same rank: a blocked
 * layout with the same parameters, a slice of the parent re-shaped.
 * A LY_LINEAR layout has no family: returns NULL unless the shape is
 * unchanged. Used for broadcast (a [M,1] value and its [M,N] result share
 * the parameters). */
Layout *ly_reshaped_family(Arena *ar, const Layout *l, const int32_t *shape);

/* The layout of permute(x, perm) when x has layout l: result dimension i
 * is l's dimension perm[i]. A blocked layout stays blocked (its
 * parameters permuted); others become LY_LINEAR. */
Layout *ly_permute(Arena *ar, const Layout *l, const int64_t *perm);

/* The layout of reshape(x, shape) when x has layout l: a row-major
 * reshape keeps every element's linear index, so the bases are unchanged
 * and only the shape differs (LY_LINEAR unless the shape is l's). */
Layout *ly_reshape(Arena *ar, const Layout *l, int rank, const int32_t *shape);

/* The element coordinate held by hardware index x: the XOR of the basis
 * vectors of x's set bits, packed (ly_unpack gives the coordinates). */
uint32_t ly_apply(const Layout *l, LyIndex x);
/* Same, written into c[0..rank). */
void ly_coord(const Layout *l, LyIndex x, int32_t *c);

/* Number of registers, lanes, warps (1 << nbits). */
int ly_size(const Layout *l, LyIn d);

/* Equality of maps (shape and bases; kind and parameters ignored). */
int ly_eq(const Layout *a, const Layout *b);

/* A plain linear map over F2 from nin input bits to nout output bits
 * (each at most 32): col[i] is the image of input bit i; the image of x is
 * the XOR of col[i] over the set bits i of x. */
typedef struct LyMap {
    int nin, nout;
    uint32_t col[32];
} LyMap;

/* A layout's packed hardware index: reg | lane << nbits[REG] |
 * warp << (nbits[REG] + nbits[LANE]). */
uint32_t ly_hw_pack(const Layout *l, LyIndex x);
LyIndex ly_hw_unpack(const Layout *l, uint32_t packed);

/* The rank over F2 of vectors v[0..n) (n <= 32). */
int ly_rank(const uint32_t *v, int n);

/* The layout as a map from packed hardware indices to packed
 * coordinates. */
LyMap ly_map(const Layout *l);
uint32_t ly_map_apply(const LyMap *m, uint32_t x);
/* Composition f ∘ g (g.nout must equal f.nin): x -> f(g(x)). */
LyMap ly_map_compose(const LyMap *f, const LyMap *g);
/* A pseudo-inverse p of m: m(p(y)) == y for every y in m's image, and
 * p(y) has no set bit on an input whose column is dependent on lower
 * columns (so p prefers low input bits: registers before lanes before
 * warps, and among copies the lowest). Returns the rank of m. */
int ly_map_pinv(const LyMap *m, LyMap *p);
/* True when m is injective (no zero or repeated directions). */
int ly_map_injective(const LyMap *m);

/* One hardware index holding the element at `packed` (through the
 * pseudo-inverse: registers first, then lanes, then warps). */
LyIndex ly_locate(const Layout *l, uint32_t packed);

/* How a conversion from layout `src` to layout `dst` (same shape, same
 * lanes and warps) moves data: the hardware dimensions across which
 * elements must travel. LY_MOVE_NONE: the maps are equal (no-op). Only
 * LY_MOVE_REG: each thread already holds what it needs (an in-thread
 * permutation of registers). LY_MOVE_LANE set: data crosses lanes but not
 * warps (warp shuffles). LY_MOVE_WARP set: data crosses warps (a shared
 * memory round trip with a barrier). */
enum { LY_MOVE_NONE = 0, LY_MOVE_REG = 1, LY_MOVE_LANE = 2, LY_MOVE_WARP = 4 };
int ly_cvt_moves(const Layout *src, const Layout *dst);

/* For a conversion that keeps every input dimension in `keep` (a mask of
 * 1 << LyIn): the hardware index in `src` that holds the element `dst`
 * holds at x, with the kept components equal to x's. Returns 0, or -1
 * when no such index exists (the conversion moves data across a kept
 * dimension). The lowering uses it to build register permutations
 * (keep lanes and warps) and shuffle sources (keep warps). */
int ly_cvt_source(const Layout *src, const Layout *dst, unsigned keep,
                  LyIndex x, LyIndex *out);

/* Number of consecutive elements along dimension `dim` that a thread holds
 * in consecutive registers starting at register 0 (the widest vector a
 * load or store can use, before alignment and masks). 1 when register
 * bit 0 does not walk `dim`. */
int ly_vec_width(const Layout *l, int dim);

/* The fastest dimension of l's memory order: the dimension register bit 0
 * walks, or else lane bit 0, or else rank - 1. */
int ly_fastest_dim(const Layout *l);

/* Prints l: `#blocked<spt=[4], tpw=[32], wpc=[4], order=[0]>`,
 * `#slice<dim=1, #blocked<...>>`, or for LY_LINEAR
 * `#linear<reg=[[0, 1], [0, 2]], lane=[...], warp=[...]>` with each basis
 * vector as coordinates. */
void ly_print(FILE *out, const Layout *l);
/* The same text in an arena string. */
const char *ly_str(Arena *ar, const Layout *l);

/* ----------------------------------------------- tensor cores (plan/mma.c) */

/* The K of the mma.sync instruction for operands of kind `in` (m16n8k16
 * for f16/bf16, m16n8k8 tf32 for f32, m16n8k32 for i8), or 0 when no
 * tensor-core instruction applies: f32 with precision="ieee" (exact FMA),
 * or a K smaller than the instruction's. f8 operands: 32, wgmma's K (a
 * product keeps them only where wgmma takes it: widen_f8.c). */
int ly_mma_k(ScalarKind in, int ieee, int K);
/* wgmma's K per instruction for operands of kind `in` (32 bytes of
 * each: f16/bf16 16, tf32 8, f8 32), 0 where it has none that Tile emits. */
int ly_wgmma_k(ScalarKind in);
/* wgmma reads operands of kind `in` only K-major from shared memory
 * (tf32 and f8: its transpose immediates exist for 16-bit types alone). */
int ly_wgmma_kmajor_only(ScalarKind in);


/* How `warps` warps split an M x N accumulator (Triton's warpsPerTileV2):
 * doubling along M while M still has more 16-row repeats per warp than N
 * has 16-column ones, else along N. A dot whose result feeds another
 * dot's A operand (`chained`: attention) puts every warp on M when M has
 * 16 rows per warp, so that the row reductions in between stay inside
 * warps and the result feeds the next product without a conversion. */
void ly_mma_warps(int32_t M, int32_t N, int warps, int chained,
                  int32_t out[2]);

/* The accumulator layout of mma.sync m16n8k<mma_k> for a [M, N] tile (or
 * a tile of the same family with size-1 dimensions: copies): per warp,
 * a 16 x 8 block where lane l holds row l/4 (+8 for register bit 1) and
 * columns 2(l%4) + register bit 0; warps over M and N by `warps`;
 * repeats in registers, N before M. Returns NULL for bad parameters. */
Layout *ly_mma(Arena *ar, const int32_t shape[2], int mma_k,
               const int32_t warps[2]);

/* The accumulator `acc` (from ly_mma, mma.sync) with the bits of each
 * dimension d where low[d] is set permuted, in place: the tile's lowest
 * coordinate bits become two of those a thread walks in registers (N:
 * the first two N repeats; M: row+8 and the first M repeat), the next
 * three the instruction's lane bits in reverse order, then the warps and
 * the other repeats. Products are unchanged (operands follow through
 * ly_dot_operand and every instruction tile still pairs A, B and C by
 * their constant coordinates), but a lane's operand elements along that
 * dimension are 4 consecutive ones of a 16-byte unit, and the 8 lanes of
 * a quarter warp (4 K rows of one swizzled buffer, two lane groups)
 * reach 8 distinct units: one conflict-free ld.shared.v4 where TF32,
 * which ldmatrix cannot transpose, took 4 scalar loads. No-op where the
 * dimension has too few register repeats for 16 bytes (N: fewer than 32
 * columns a warp; M: fewer than 32 rows). */
void ly_mma_low(Layout *acc, const uint8_t low[2]);

/* The layout of operand op_idx (0: A [M, K], 1: B [K, N]) of a dot whose
 * accumulator has layout `acc`, with `shape` the operand's shape and
 * `ebits` its element width. For an LY_MMA accumulator, the registers
 * mma.sync reads, exactly as ldmatrix leaves them: 8 x 16-byte core
 * matrices (lane l holds row l/4, 32-bit column l%4, kwidth = 32/ebits
 * elements along K per register); A takes 2 x 2 core matrices (M+8, then
 * K), B two along K; repeats along K, then M (A) or N (B). Warps copy
 * along the dimension the operand lacks. For a blocked accumulator (the
 * FMA path): each thread holds, for every row (A) or column (B) of the
 * accumulator it owns, the whole of K. */
Layout *ly_dot_operand(Arena *ar, const Layout *acc, int op_idx,
                       const int32_t shape[2], int ebits);

/* A 2-D tile staged in shared memory: `fast` is the contiguous dimension
 * (its elements are consecutive in memory), rows are the other one. The
 * swizzle XORs the index of each 16-byte unit of a row with the row's
 * phase = (row / per_phase) % max_phase (Triton's swizzled shared
 * layout: vec = 16 bytes of elements, per_phase = max(1, 128 bytes /
 * row bytes), max_phase = min(8 / per_phase, units per row)), so that the
 * 8 rows of any ldmatrix core matrix (8 consecutive rows, one 16-byte
 * unit) fall in 8 distinct 16-byte bank groups. The map from packed
 * coordinate to element offset is linear over F2: `off`. */
typedef struct LySmem {
    int32_t shape[2];
    int fast;                 /* contiguous dimension: 0 or 1 */
    int esize;                /* bytes per element */
    int vec, per_phase, max_phase;
    int swizzle;              /* ly_smem_wgmma: its swizzle width in bytes
                                 (32, 64, 128); 0 for ly_smem_swizzled */
    LyMap off;                /* packed coordinate -> element offset */
} LySmem;

LySmem *ly_smem_swizzled(Arena *ar, const int32_t shape[2], int fast,
                         int esize);
/* The canonical layout wgmma reads through a descriptor (PTX ISA,
 * "shared memory matrix layout"): the contiguous dimension cut into
 * blocks of `swizzle` bytes (128, or the row's width when it is 32 or
 * 64), each block all rows x swizzle bytes, blocks one after another;
 * within a block row r lies at r * swizzle bytes and its 16-byte unit u
 * at u ^ (r * swizzle / 128 % (swizzle / 16)): the hardware's
 * Swizzle<3|2|1, 4, 3> on address bits, given a buffer aligned to
 * 8 * swizzle bytes. NULL when the row is narrower than 32 bytes. */
LySmem *ly_smem_wgmma(Arena *ar, const int32_t shape[2], int fast, int esize);
/* A buffer of 4-byte elements only threads read, through layout rd (a
 * tf32 A loaded along M, read from its ring into wgmma's registers):
 * ly_smem_wgmma's layout with its row bits flipping the 16-byte units in
 * the order that leaves rd's reads the fewest bank conflicts (the first
 * such: wgmma's own where it is as good). wgmma's own order puts the
 * fragment's rows k and k + 1 (lanes t, t + 1) on the same banks. NULL
 * where ly_smem_wgmma is. */
LySmem *ly_smem_read_by(Arena *ar, const int32_t shape[2], int fast, const Layout *rd);
/* Element offset of the element at packed coordinate `packed`. */
uint32_t ly_smem_offset(const LySmem *s, uint32_t packed);
/* Bytes one buffer of s takes. */
int64_t ly_smem_bytes(const LySmem *s);
/* Where ldmatrix.x<n> (n = 1, 2, 4; `.trans` when `trans`) reads the
 * operand layout dl (#dot_op with an MMA parent) from buffer s: a layout
 * whose "coordinate" at (register g, lane l, warp w) is the element
 * offset in s that lane l supplies for the g-th group of n 32-bit
 * registers (row l % 8 of the core matrix that becomes 32-bit register
 * l / 8 % n of the group). .trans needs 16-bit elements. NULL when dl is
 * not such a layout. */
Layout *ly_ldmatrix_addr(Arena *ar, const Layout *dl, int n, int trans,
                         const LySmem *s);
/* The layout in which the threads move a tile from buffer `from` to
 * buffer `to` of the same shape whose rows run along the other dimension
 * (a tf32 operand copied along M or N, staged K-major for wgmma: lower/
 * pipeline.c): 16-byte reads of `from` and writes of `to`, each free of
 * bank conflicts, the map a bijection where `warps` warps do not
 * outnumber the 16-element blocks. NULL when the buffers do not fit
 * (same dimension contiguous, other shapes or element sizes). */
Layout *ly_transpose_layout(Arena *ar, const LySmem *from, const LySmem *to, int warps);

/* -------------------------------------------------------------- axis info */

/* What one specialization variant assumes of the runtime parameters
 * (docs/language.md, runtime contract): parameter i is a multiple of
 * 2^log2[i] — a pointer its address in bytes, an integer its value; 0
 * assumes nothing (floats and bools always 0); LY_FACT_ONE: integer i
 * equals 1 (a unit stride, as Triton's `== 1` specialization). The
 * generic variant assumes nothing (log2 NULL reads as all 0). tilec
 * assumes at most 16 (LY_FACT_MAX) and never of a @nospecialize integer;
 * which facts a variant keeps is plan/guard.c's to decide. */
typedef struct LyFacts {
    int n;               /* the kernel's parameters */
    uint8_t *log2;       /* [n], or NULL: nothing assumed */
} LyFacts;

enum { LY_FACT_MAX = 4, LY_FACT_ONE = 0x80 };

/* Nothing assumed; the most tilec assumes (every pointer 16-byte aligned,
 * and with `ints` every integer without @nospecialize divisible by 16). */
LyFacts ly_facts_none(const IrKernel *k);
LyFacts ly_facts_full(Arena *ar, const IrKernel *k, int ints);
/* log2 of the multiple f assumes of parameter i (0 where it assumes the
 * value 1: 1 is a multiple of 2^0 only). */
int ly_fact(const LyFacts *f, int i);
/* f assumes integer parameter i equals 1. */
int ly_fact_one(const LyFacts *f, int i);
/* f's entry for parameter i as stored: a log2, or LY_FACT_ONE. */
int ly_fact_raw(const LyFacts *f, int i);

/* Per dimension d of a value (for a scalar, index 0 describes it):
 *  contig[d]: the largest power of two C such that, along d, every
 *             aligned run of C elements holds consecutive integers
 *             (x, x+1, ... computed in the element type, so modulo 2^w).
 *             For pointers, consecutive elements.
 *  div[d]:    a power of two dividing the first element of every such
 *             run (for pointers: the address in bytes), capped at 2^30.
 *  constancy[d]: the largest power of two K such that every aligned run
 *             of K elements along d holds one value.
 * Every property is at least 1. And per value, for integer and bool
 * kinds: every element lies in [lo, hi] (as its type reads it: signed or
 * unsigned); (INT64_MIN, INT64_MAX) when nothing is known. lo == hi: a
 * known constant. Each field is a claim the lowering trusts, and each
 * transfer rule is checked by brute force (tests/unit/test_axis_rules.c).
 */
typedef struct AxInfo {
    int64_t contig[IR_MAXRANK];
    int64_t div[IR_MAXRANK];
    int64_t constancy[IR_MAXRANK];
    int64_t lo, hi;
} AxInfo;

typedef struct AxTable {
    int nvalues;
    AxInfo *info;        /* info[value->id] */
} AxTable;

/* Forward dataflow over k: seeds (arange, constants, multiple_of,
 * max_contiguous, the variant's parameter assumptions), transfer
 * functions per op, conservative joins at loop heads and if results. */
AxTable *ax_analyze(Arena *ar, const IrKernel *k, const LyFacts *f);
const AxInfo *ax_of(const AxTable *t, const IrValue *v);

/* The pieces of the analysis, pure, for ax_analyze and the soundness test:
 * ax_rule is op's transfer function (the facts of its first result from
 * in[i], the facts of op->args[i]; it reads op's opcode, attributes and
 * the types of its operands and result); ax_join what holds of a value
 * that satisfies a or b; ax_param what holds of a parameter under its
 * fact (ly_fact_raw): a multiple of 2^fact (address bytes of a pointer,
 * value of an integer), or, for LY_FACT_ONE, an integer equal to 1. */
AxInfo ax_rule(const IrOp *op, const AxInfo *const *in);
AxInfo ax_join(const AxInfo *a, const AxInfo *b);
AxInfo ax_param(const IrParam *p, int fact);
/* a is a known constant (stored in *value when value is not NULL). */
int ax_is_const(const AxInfo *a, int64_t *value);
/* The longest aligned run of elements along dim that a memory access
 * through pointers `ptr` (elements of esize bytes) under `mask` (NULL:
 * none, or a scalar mask) can make at once: consecutive addresses, the
 * first aligned to the run's bytes, one mask value; at least 1. */
int64_t ax_mem_run(const AxInfo *ptr, int64_t esize, const AxInfo *mask, int dim);

/* ----------------------------------------------------- layout assignment */

/* The accesses realign.c realigned: each moves groups of vec elements
 * when a run-time test admits it (lower/memory.c), elements otherwise;
 * its tile is rotated by `shift`, a scalar below smax. */
typedef struct LyRealigned {
    const IrOp *op;
    const IrValue *shift;
    int vec, smax;
    int moved;           /* a load of other offsets than its component's
                            anchor, split: op read in a rotation of its own
                            (vec > 0) or none (op the gather, vec 0), its
                            elements then moved to the anchor's rotation */
} LyRealigned;

typedef struct LyRealign {
    int n, cap;
    LyRealigned *v;
} LyRealign;

/* Loads a product reads in its loop, laid out 16 bytes of consecutive
 * elements a thread whatever their alignment (layout_assign.c,
 * stage_operand): ly_shift_run says which of them read their groups as
 * words joined by shifts. Recorded while the anchors are chosen, not
 * derived later: stage_operand asks whether the load is a product's
 * operand, and after assignment a layout conversion may stand between
 * the two. */
typedef struct LyStaged {
    int n, cap;
    const IrOp **v;
} LyStaged;

typedef struct LyResult {
    LyFacts facts;       /* what the variant assumes */
    AxTable *axis;       /* covers every value, conversions included */
    LyRealign realign;
    LyStaged staged;
} LyResult;

/* Assigns a layout to every tile value of k for variant v (in place):
 * loads/stores are anchors with coalesced blocked layouts, layouts flow
 * forward and backward through element-wise ops, broadcasts, expand_dims,
 * permutes and loops; reductions give slices; `convert_layout` ops are
 * inserted where layouts meet, cheap producers recomputed instead.
 * Build each variant from a fresh IrKernel (sm_compile again): the pass
 * changes the kernel. */
LyResult *ly_assign_kernel(Arena *ar, IrKernel *k, const LyFacts *f, int wgmma);
/* ly_assign_kernel's `wgmma`, ly_plan_variants' too: 0, or the target's
 * warpgroup MMA (LY_ASSIGN_WGMMA), with every f8 product widened to f16
 * all the same where LY_ASSIGN_F8_WIDE is set (lower/lower.c plans a
 * configuration so again where a loop could not keep f8 operands for
 * wgmma: LY_WG_F8_LOOP). LY_ASSIGN_SPLIT: rows realigned beside loads of
 * other offsets too, those loads split (plan/realign.c; tilec
 * --split-loads). */
enum { LY_ASSIGN_WGMMA = 1, LY_ASSIGN_F8_WIDE = 2, LY_ASSIGN_SPLIT = 4 };
/* Why warpgroup MMA cannot take product `dot` of k on sm_90a, the first
 * reason layout assignment finds (LY_WG_FITS: it can). */
typedef enum LyWgmmaMisfit {
    LY_WG_FITS = 0,
    LY_WG_DTYPE,        /* operands other than f16/bf16/tf32/f8 (i8, ieee
                           f32), or f8 off sm_90a */
    LY_WG_F16_ACC,      /* an f16 accumulator (out_dtype=f16) */
    LY_WG_WARPS,        /* warps not a multiple of 4 (a warpgroup) */
    LY_WG_ROWS,         /* M not a multiple of 64 */
    LY_WG_FEW_ROWS,     /* M below 16 x warps (every warp on M) */
    LY_WG_COLS,         /* N below 8 */
    LY_WG_STAGES,       /* stages < 2 */
    LY_WG_LOOP,         /* B not loaded in the product's `for` loop */
    LY_WG_A_LOOP,       /* tf32, f8: A not loaded there (registers: 16-bit,
                           or tf32 read from its ring) */
    LY_WG_A_MN,         /* tf32, f8: A loaded along M (dot_layout's check) */
    LY_WG_B_MN,         /* tf32, f8: B loaded along N (dot_layout's check) */
    LY_WG_F8,           /* f8 operands converted to f16 (widen_f8.c; the
                           reason in the dot's iattr[2]) */
    LY_WG_F8_LOOP,      /* f8 (in iattr[2] only): the loop's plan could not
                           keep them for wgmma (LY_ASSIGN_F8_WIDE) */
} LyWgmmaMisfit;
LyWgmmaMisfit ly_wgmma_misfit(const IrKernel *k, const IrOp *dot);
/* Layout assignment records, on an sm_90a target, the reason it found in
 * the product's iattr[1] (LY_WG_FITS when it runs on wgmma or has no
 * tensor-core layout) for ly_mma_reason. */
/* Runs ly_assign_kernel on every kernel of m, assuming nothing or, with
 * `aligned`, ly_facts_full (the plan the aligned variant has: plan/guard.c
 * keeps only facts that leave it unchanged). `wgmma`: the target has
 * warpgroup MMA (sm_90a), which products whose operands are loaded in
 * their loop may use (dot_layout, layout_assign.c). */
void ly_assign_module(Arena *ar, IrModule *m, int aligned, int wgmma);

/* Loop-carried reductions reduced once after the loop (carry_reduce.c,
 * run by ly_assign_kernel first): each `for` loop's carried value
 * updated only as `acc = acc OP red(t, axis)` (sum/add, max/max,
 * min/min) carries t's whole tile instead, `acc2 = acc2 OP t`, and
 * `acc = init OP red(acc2, axis)` follows the loop; refused where the
 * carried tile would take more than LY_CARRY_MAX_REGS 32-bit registers
 * per thread. Returns the number of values rewritten. */
enum { LY_CARRY_MAX_REGS = 64 };
int ly_carry_reduce(Arena *ar, IrKernel *k);
/* Pointers and integers a `for` loop steps by an invariant (`x += inc`
 * in its body, not under an `if`) read in the body as x_0 + n * inc, n
 * the iterations done (induction.c, run by ly_assign_kernel first, on a
 * variant's copy), so that loads through them can be copied ahead.
 * Returns the number of values rewritten. */
int ly_induction(Arena *ar, IrKernel *k);
/* v is defined inside loop op `loop` (in a region of it, at any depth;
 * hoist.c). */
int ly_defined_in(const IrValue *v, const IrOp *loop);
/* Integer scalars a and b are one value: the same value, or constants
 * of one kind and value (plan/induction.c; plan/tma.c compares through
 * widenings with it). */
int ly_same_int(const IrValue *a, const IrValue *b);
/* Scalars that do not change in a loop moved before it (hoist.c, run by
 * ly_assign_kernel after ly_induction): pure scalar ops whose operands are all
 * defined outside the loop. Returns the number of ops moved. */
int ly_hoist(Arena *ar, IrKernel *k);
/* Common subexpressions merged (cse.c, run by ly_assign_kernel after
 * ly_hoist):
 * an op without regions that computes what an earlier op in scope
 * computed from the same operands is dropped and read as that one; loads
 * too where no store, atomic or barrier may come between. Returns the
 * number of ops dropped. */
int ly_cse(Arena *ar, IrKernel *k);
/* Transposed loads read only by products (fold_trans.c, run by
 * ly_assign_kernel after ly_carry_reduce): `dot(a, trans(load(p)))`
 * becomes a load of the transposed pointers, the product's operand
 * itself. Returns the number of loads rewritten. */
int ly_fold_trans(Arena *ar, IrKernel *k);
/* Barriers where another thread of the program could see a global access
 * out of the source's order (memorder.c, run by ly_assign_kernel once
 * layouts are assigned): before a load, store or atomic that may reach
 * an address an earlier access since the last barrier reached from
 * another thread, one of them writing, an IR_BARRIER is inserted.
 * Returns the number inserted. */
int ly_order_memory(Arena *ar, IrKernel *k);
/* Permute `perm` of tile v, linked into blk right after pos (fold_trans.c;
 * swap_dot.c's transposes too). */
IrValue *ly_permute_tile(Arena *ar, IrKernel *k, IrValue *v, const int64_t *perm,
                        IrBlock *blk, IrOp *pos, Loc loc);
/* TF32 products whose B runs along N, computed transposed (swap_dot.c,
 * run by ly_assign_kernel for wgmma targets after axis analysis, which
 * it reads): `acc = dot(a, b, acc)` in a `for` loop becomes
 * `accᵀ = dot(bᵀ, aᵀ, accᵀ)`, the dot marked in iattr[3]. Returns the
 * number of products rewritten. */
int ly_swap_dots(Arena *ar, IrKernel *k, const AxTable *ax);
/* The longest run of elements along dim that memory op `op` (a load,
 * store or atomic) can access at once by the axis info alone (layout
 * assignment's): consecutive addresses, aligned to the run, one mask
 * value; at least 1. */
int64_t ly_access_run(const AxTable *ax, const IrOp *op, int dim);
/* Products of f8 operands that wgmma does not take as f16 products
 * (widen_f8.c, run after ly_fold_trans): misfit(cx, dot) gives the
 * LyWgmmaMisfit reason for a dot of f8 operands, LY_WG_FITS to keep them;
 * otherwise both operands are converted to f16 (exactly) right before
 * it, and the reason is kept in the dot's iattr[2]. Returns the number of
 * operands converted. */
int ly_widen_f8(Arena *ar, IrKernel *k, int (*misfit)(void *, const IrOp *), void *cx);
/* Row tiles rotated so that their accesses start aligned (realign.c, run
 * by ly_assign_kernel after ly_widen_f8, under axis info ax of k): every
 * arange of a component of 1-D tiles that only element-wise ops,
 * accesses, `for` loops and sum/max/min reductions join is rotated by
 * the misalignment of an anchor access, computed at the top of the
 * kernel; the component's accesses that axis info cannot vectorize are
 * recorded in out. Returns the number of components rotated. */
enum { LY_REALIGN_MAX_GROUPS = 4 };
int ly_realign(Arena *ar, IrKernel *k, const AxTable *ax, LyRealign *out, int split);
/* What ly_realign recorded of access op, or NULL. */
const LyRealigned *ly_realigned(const LyRealign *r, const IrOp *op);

/* Checks the pass's postcondition on k: every tile value has a layout,
 * no scalar has one, every operand has the layout its op needs (memory
 * ops: their pointer's; element-wise ops: their result's; expand_dims:
 * the slice of its result's; reductions: results are slices of their
 * operands; carried values: one layout). Returns the number of
 * violations (0 after ly_assign_kernel). */
int ly_verify_kernel(Arena *ar, const IrKernel *k);

/* ------------------------------------ pipelining and shared memory budget */

/* Software pipelining analysis (plan/pipeline.c), run by ly_assign_kernel
 * at its end: marks each load that feeds a tensor-core operand inside a
 * `for` loop, and can be copied ahead with cp.async, by setting its
 * iattr[3] to the ring depth (k->stages); the IR prints it as
 * `, cp.async stages N`. Returns the number of loads marked. See
 * docs/internals/mma.md for the conditions. */
int ly_pipeline_kernel(const LyResult *r, IrKernel *k);

/* ------------------------------------------------------ the lowering plan */

/* How the lowering does an op that has more than one way
 * (plan/lowering.c); every other op is lowered by its kind. */
typedef enum LyHow {
    LY_HOW_KIND = 0,    /* by its kind: an ordinary load; a conversion by
                           the generic remap (registers, shuffles or the
                           padded scratch round trip, lower/layout.c) */
    LY_HOW_RING,        /* a load copied into its loop's cp.async ring (it
                           emits nothing), and its conversion to a
                           tensor-core operand, read from the ring */
    LY_HOW_LDMATRIX,    /* a conversion to an mma.sync operand across
                           lanes or warps: a swizzled buffer, ldmatrix */
    LY_HOW_SWIZZLED,    /* an accumulator's conversion across lanes or
                           warps through a swizzled buffer */
    LY_HOW_STAGE,       /* a conversion to a wgmma operand that is no
                           ring's: its registers stored into its loop's
                           stage buffer, read through descriptors */
    LY_HOW_TMA_STORE,   /* a conversion whose one reader is a store
                           written by TMA (LyTmaStore): it emits nothing,
                           the store writes its source's registers */
} LyHow;

/* One marked load's ring: `stages` buffers of `buf` bytes from `off` in
 * the kernel's ring region, each thread copying w elements at a time. */
enum { LY_MAX_TMAPS = 8 };   /* tensor maps an entry takes (bundle.h's) */

/* A ring filled by TMA, or a store written by TMA (plan/tma.c): the
 * tensor map the entry takes for it and what each copy's coordinates come
 * from. Dimension 0 is the tensor's contiguous one (the buffer's `fast`),
 * 1 the rows. */
typedef struct LyTma {
    const IrOp *op;            /* the ring's load, or the store */
    int param;                 /* the pointer parameter: element [0, 0] */
    int map;                   /* the entry's tensor map (its order) */
    ScalarKind elem;
    int swizzle;               /* bytes: 32, 64 or 128 (the ring's) */
    int32_t box[2];            /* elements; nbox boxes side by side along
                                  dimension 0 fill a slot */
    int run[2];                /* the dimension of index[d]'s tile along
                                  which it counts up by 1 (constant along
                                  the other) */
    int nbox;
    const IrValue *index[2];   /* index tiles: element 0 is the coordinate, */
    const IrValue *shift[2];   /* plus this i32 scalar (NULL: none) */
    const IrValue *bound[2];   /* the mask's bounds (a parameter or an
                                  integer constant), NULL: unbounded */
    const IrValue *stride;     /* of dimension 1, in elements (the same) */
    int rank;                  /* 2, or 3: a batch dimension, box 1 */
    const IrValue *batch;      /* rank 3: the scalar coordinate along it */
    const IrValue *bstride;    /* and its stride (a parameter or constant) */
} LyTma;

typedef struct LyRing {
    const IrOp *load;
    LySmem *s;
    int64_t off;        /* of slot 0 in the ring region */
    int64_t buf;        /* bytes per slot (128-byte aligned; 1024 for wgmma) */
    int w;              /* elements per cp.async */
    const LyTma *tma;   /* filled by TMA copies instead, or NULL */
} LyRing;

/* A wgmma operand staged through shared memory: conversion `cvt` (in the
 * loop's body, read only by products) stores its source's registers into
 * a wgmma buffer at `off` in the ring region (the next one, for odd
 * iterations, `stage_buf` bytes above: LyPipe.stage_bufs), once per
 * iteration. When
 * the source is a ring's load whose rows run along M or N (`ring`; a
 * kind wgmma reads K-major only: tf32), the threads read the ring's
 * slot and write the stage in layout `xl` (ly_transpose_layout)
 * instead. */
typedef struct LyStage {
    const IrOp *cvt;
    LySmem *s;
    int64_t off, stage_buf;
    const LyRing *ring;
    const Layout *xl;
} LyStage;

/* A pipelined loop (lower/pipeline.c says how it runs). */
typedef struct LyPipe {
    const IrOp *loop;
    int stages, nring;
    int ahead;          /* copies run this many iterations ahead */
    LyRing *ring;
    /* The body's products when they run as wgmma: their ring operands
     * are read through descriptors, and with `pending` (one product) one
     * warpgroup MMA group stays in flight across the barrier (the
     * accumulator: carried value `carry`); the iteration's copies then
     * wait until after the product's wait and a second barrier, so that
     * the slot they overwrite is the one the group before read
     * (lower/pipeline.c, lw_pipe_late_copy), `stages - 1` ahead. */
    const IrOp *wg_dot[4];
    int nwg, pending, carry;
    /* With `pending`: the `if` whose then-arm alone reads the product
     * (an epilogue inside the loop: lower/pipeline.c,
     * lw_pipe_drain_begin), or NULL when the accumulator goes straight to
     * the next iteration; and the product's conversions before it that
     * only that arm reads, lowered in the arm after its wait. */
    const IrOp *drain_if;
    const IrOp *drain_cvt[2];
    int ndrain_cvt;
    /* Their other operands that are conversions in the body (loads
     * narrower than a cp.async, say): stored into stage buffers, each
     * `stage_bufs` buffers of `stage_buf` bytes apart (2 with `pending`:
     * iteration j writes buffer j % 2 while group j-1 reads the other). */
    LyStage stage[8];
    int nstage, stage_bufs;
    /* Conversions of A rings the products take from registers instead
     * of descriptors: tf32 loaded along M (ly_reg_a). */
    const IrOp *reg_a[4];
    int nreg_a;
    /* wgmma loops whose rings only threads read (an A into registers, a
     * tf32 operand moved K-major into its stage), none a descriptor:
     * the copies need no proxy fence, and they follow the product with
     * no barrier of their own (the top barrier already freed their
     * slot), as far as they can be before the stages' fence, which
     * waits for them. */
    int threads_read;
    /* Rings filled by TMA (LyRing.tma): each slot's copies complete on
     * an mbarrier, `stages` of them 8 bytes apart from `bar_off` in the
     * ring region; `tma_bytes` the bytes one slot's copies bring. */
    int ntma;
    int64_t bar_off, tma_bytes;
    /* How slots are freed for their next copies (plan/lowering.c
     * release_plan; lower/pipeline.c, lower/tma.c). Where every ring is
     * TMA's and only descriptors read them, the loop crosses no CTA
     * barrier: LY_RELEASE_LAST (the default) has a u32 counter per slot
     * (`stages` 8-byte slots after the mbarriers), which each warp
     * increments once its products are done with the slot, the warp
     * whose increment completes the count refilling it, so that no
     * thread waits for a release; LY_RELEASE_MBARRIER (tilec
     * --slot-sync=mbarrier) a second mbarrier per slot there (count: the
     * warps) on which each warp arrives, and which thread 0 waits for
     * before refilling the slot. LY_RELEASE_NONE (tilec --slot-sync=cta,
     * or a loop the rule does not take): the iteration's CTA barrier. */
    int release;
    /* The product issued one iteration ahead (plan LY_PLAN_EARLY,
     * lower/pipeline.c lw_pipe_early): attention's S = Q K^T for block
     * j+1 runs on the tensor cores while the threads work on block j's
     * softmax; or NULL. */
    const IrOp *early;
    /* Warpgroups taking turns at the products (plan LY_PLAN_PINGPONG,
     * lower/pingpong.c): how many (the kernel's warps / 4), or 0 where
     * they issue each product together. */
    int pingpong;
    /* Where the scratch used in the body would not fit below the rings:
     * the most bytes it may take there (plan/lowering.c fit_split), which
     * conversions through a swizzled buffer meet in pieces (LyPlan
     * .pieces); 0: no limit. */
    int64_t split_limit;
    int64_t bytes;      /* the ring region grows by this, alignment included */
} LyPipe;

typedef struct LyPlan {
    int *uses;          /* operands reading each value, by IrValue id */
    uint8_t *how;       /* LyHow of a load or conversion, by its result's id */
    LySmem **smem;      /* LDMATRIX, SWIZZLED: the buffer, by the same id */
    uint8_t *pieces;    /* SWIZZLED inside a loop with a split_limit: the
                           conversion goes through its buffer in this many
                           pieces (a power of two; 0 or 1: whole), each the
                           elements whose offsets' top bits are the piece's
                           (lower/smem.c lw_acc_convert), by the same id */
    LyPipe **pipe;      /* by id of a `for` body's induction variable;
                           NULL: not pipelined */
    int64_t ring_bytes; /* the ring region: every pipelined loop's rings */
    int64_t ring_align; /* of the ring region: 1024 once a loop's rings
                           were laid out for wgmma, else 0 (128) */
    int unpipelined;    /* loops with marked loads that run without rings */
    Loc unpipelined_loop;      /* the first of them */
    int64_t unpipelined_need;  /* its rings' shared memory when room was the
                                  reason, else 0 */
    uint8_t *magic;     /* by IrValue id: 1 for a divisor whose multiply-
                           shift constants are computed once, right after
                           it is defined (plan/divisor.c); NULL: none */
    const IrOp *early;  /* the first loop's product issued one iteration
                           ahead (LyPipe.early), for --stats; or NULL */
    const IrOp *released;  /* the first loop whose slots are released
                              through mbarriers (LyPipe.release), for
                              --stats; or NULL */
    const IrOp *pingpong;  /* the first loop whose warpgroups take turns
                              at the products (LyPipe.pingpong), for
                              --stats; or NULL */
    int ntmaps;         /* the tensor maps the entry takes after its
                           parameters, in order (LyTma.map) */
    const LyTma *tmaps[LY_MAX_TMAPS];
    int ntstores;       /* stores written by TMA (LY_PLAN_TMA_STORE) */
    const struct LyTmaStore *tstores;
    /* Warp specialization (tilec --warp-specialize; set after this
     * plan by lower/warpspec.c, which knows the lowering's ways of
     * moving values): the loop whose TMA copies a producer warpgroup
     * issues, beside the kernel's warps, or NULL; `ws_need`, by IrValue
     * id, the values the producer computes (the copies' coordinates and
     * the loop's bounds, from the parameters). */
    const IrOp *ws_loop;
    const uint8_t *ws_need;
    const char *ws_refused;   /* asked and not taken: why (for --stats) */
} LyPlan;

/* A store written by TMA (plan/tma.c, LY_PLAN_TMA_STORE; lower/tma.c
 * says how): the threads write `src` — the stored tile, or the source
 * of its conversion (LY_HOW_TMA_STORE), in its own layout — into a
 * buffer of the scratch laid out as `s` (ly_smem_wgmma's: the boxes of
 * `t` one after another), and one thread copies the boxes out. */
typedef struct LyTmaStore {
    const IrOp *store;
    const IrValue *src;
    const LySmem *s;
    const LyTma *t;
} LyTmaStore;

/* The plan of kernel k (layouts assigned; ly its result) for a target
 * with max_shared bytes of shared memory per block. */
/* ly_plan_lowering's flags: TMA copies; products issued one iteration
 * ahead (tilec --early-products); TMA slots freed by CTA barriers
 * (tilec --slot-sync=cta; LyPipe.release); warpgroups taking turns at a
 * loop's products (tilec --pingpong; LyPipe.pingpong); stores written by
 * TMA (tilec --tma-store; LyPlan.tstores); slots released through
 * mbarriers (tilec --slot-sync=mbarrier). Neither CTA_SYNC nor MBAR_SYNC:
 * released by counters, the last warp refilling (the default) */
enum { LY_PLAN_TMA = 1, LY_PLAN_EARLY = 2, LY_PLAN_CTA_SYNC = 4, LY_PLAN_PINGPONG = 8,
       LY_PLAN_TMA_STORE = 16, LY_PLAN_MBAR_SYNC = 32 };
/* LyPipe.release: how a TMA loop's slots are freed for their next copies */
enum { LY_RELEASE_NONE, LY_RELEASE_MBARRIER, LY_RELEASE_LAST };
LyPlan *ly_plan_lowering(Arena *ar, const IrKernel *k, const LyResult *ly,
                         int64_t max_shared, int flags);
/* The tensor map that fills ring r of kernel k by TMA (plan/tma.c), or
 * NULL when its load is not such a box (ax: the variant's axis info). */
LyTma *ly_tma_ring(Arena *ar, const IrKernel *k, const AxTable *ax, const LyRing *r);
/* The tensor map that writes store `st` of kernel k by TMA from a buffer
 * laid out as s, or NULL when its address and mask are not such a box. */
LyTma *ly_tma_store(Arena *ar, const IrKernel *k, const AxTable *ax, const IrOp *st,
                    const LySmem *s);
/* Store op's LyTmaStore in plan p, or NULL: written by the threads. */
const LyTmaStore *ly_tma_store_of(const LyPlan *p, const IrOp *op);
const LyPipe *ly_pipe_of(const LyPlan *p, const IrOp *loop);
/* The divisors of k to invert once (plan/divisor.c): marks by IrValue
 * id, or NULL when none qualifies. */
uint8_t *ly_plan_divisors(Arena *ar, const IrKernel *k, const LyResult *ly);
/* The scalar an integer `/` or `%` divides by (its divisor, or the
 * scalar its divisor splats); NULL for other ops and tile divisors. */
const IrValue *ly_divisor_scalar(const IrOp *op);
/* Value v is the same in every iteration of the loop whose body is b
 * (plan/lowering.c says which values count). */
int ly_invariant_in(const IrBlock *b, const IrValue *v);
/* Product dot runs as wgmma in loop q's plan (q NULL: no). */
int ly_wgmma_planned(const LyPipe *q, const IrOp *dot);
/* Conversion cv (of a ring) is read into registers for loop q's wgmma
 * products (LyPipe.reg_a). */
int ly_reg_a(const LyPipe *q, const IrOp *cv);
/* The stage buffer of conversion cv in loop q's plan, or NULL (q NULL:
 * none). */
const LyStage *ly_stage_of(const LyPipe *q, const IrOp *cv);
/* Why product `dot` of k (planned as p) runs on mma.sync on a target
 * with warpgroup MMA: a sentence for --stats; NULL when it runs on wgmma
 * or not on tensor cores at all. */
const char *ly_mma_reason(Arena *ar, const LyPlan *p, const IrKernel *k, const IrOp *dot);
/* What a product that runs as wgmma pays for operands wgmma cannot read
 * as loaded (tf32 along M or N: moved K-major by the threads, or an A
 * read into registers): a phrase for --stats, or NULL when nothing. */
const char *ly_wgmma_note(Arena *ar, const LyPlan *p, const IrOp *dot);
/* l is an mma.sync operand layout (#dot_op of an MMA parent, rank 2). */
int ly_is_mma_operand(const Layout *l);
/* Every use of conversion op's result is an operand of a product later
 * in its block. */
int ly_only_products(const LyPlan *p, const IrOp *op);
/* Operand i of `dot`: its conversion, in `body`, of a load of body
 * marked for a ring that nothing else reads, the conversion read only by
 * products; or NULL. */
const IrOp *ly_ring_operand(const LyPlan *p, const IrBlock *body, const IrOp *dot, int i);
/* ldmatrix can read operand layout dl (elements of esize bytes) from
 * buffer s whose contiguous dimension is `fast`; *trans: with .trans. */
int ly_ldmatrix_ok(const Layout *dl, int esize, int fast, const LySmem *s, int *trans);

/* Elements per access for a load, store or atomic op after assignment:
 * the vector width of its pointer's layout along the fastest dimension,
 * bounded by the pointer's contiguity and byte alignment, the mask's
 * constancy, and 16 bytes. 1 for scalar accesses. */
int ly_mem_vec(const LyResult *r, const IrOp *op);
/* Elements per group (8) that staged load op (LyStaged) of 16-bit
 * elements reads as 4-byte words joined by shifts (lower/memory.c,
 * lw_load_shifted): its pointers consecutive over each thread's 16 bytes
 * but their alignment unknown, so that ly_mem_vec is narrower; 0 for any
 * other access. */
int ly_shift_run(const LyResult *r, const IrOp *op);
/* The register bits of tile v's layout that only move an element within
 * the aligned runs over which axis info says v is constant: register r
 * of a thread then holds the same value as register r & ~mask, which
 * element-wise lowering computes once. */
uint32_t ly_repeated_regs(const LyResult *r, const IrValue *v);

/* ------------------------------------------------------------- variants */

/* One specialization variant of a kernel configuration, planned
 * (plan/guard.c): the facts it is built under, each needed by its plan,
 * with, per parameter, the op whose plan changes without that fact
 * (NULL: none); its own copy of the kernel with layouts, and the result
 * of layout assignment. */
typedef struct LyVariant {
    const char *tag;     /* "u1".."u4", "a16", "l16", "p16", "g": the entry
                            name's suffix */
    LyFacts facts;
    const IrOp **needed_by;
    IrKernel *k;
    LyResult *ly;
} LyVariant;

/* At most LY_MAX_UNIT unit-stride variants, then a16, l16, p16 and g. */
enum { LY_MAX_UNIT = 4, LY_MAX_VARIANTS = LY_MAX_UNIT + 4 };

/* The variants of configuration `k` (left unchanged), most specialized
 * first, the generic one last; at most LY_MAX_VARIANTS. Returns how
 * many. See plan/guard.c for which are built and why. */
/* Kernel k rewritten so that its programs walk the tiles of its grid
 * (plan/persist.c: the kernels it takes, and how), a new kernel; NULL
 * where it does not take k. */
IrKernel *ly_persistent(Arena *ar, const IrKernel *k);
/* The marks ly_persistent leaves for plan/memorder.c: the walk's `for`
 * has iattr[0] LY_WALK_TILES (an iteration a tile: one program of the
 * kernel as written) or LY_WALK_STEPS (an iteration a K step of a tile),
 * and the latter's `if` holding a tile's epilogue iattr[0] 1 (the
 * tile's last step: the next iteration starts another program). */
enum { LY_WALK_TILES = 1, LY_WALK_STEPS = 2 };
int ly_plan_variants(Arena *ar, const IrKernel *k, int wgmma,
                     LyVariant out[LY_MAX_VARIANTS]);
/* Where the plans of a and b (two copies of one kernel after layout
 * assignment) differ — layouts, vector widths, pipelining marks, inserted
 * conversions, not repeated registers (plan/guard.c says why): the first
 * memory access that differs, else the first op (a difference in block
 * arguments counts at the op owning the block); NULL when they agree. */
const IrOp *ly_plans_differ(const IrKernel *a, const LyResult *ra,
                            const IrKernel *b, const LyResult *rb);

#endif
