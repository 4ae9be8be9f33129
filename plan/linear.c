/*
 * linear.c — layouts as linear maps over F2.
 *
 * A layout maps the bits of a hardware index (register, lane, warp) to the
 * bits of a tile coordinate. Because every size involved is a power of
 * two, that map is linear over F2: the coordinate of (r, l, w) is the XOR
 * of one basis vector per set bit. Coordinates are packed as the row-major
 * linear index of the element, so "a basis vector" is one uint32_t and a
 * whole layout is a few dozen integers (the idea of Triton's Linear
 * Layouts, arXiv 2505.23819).
 *
 * Everything else is small linear algebra on those columns:
 *  - building: a blocked layout lays registers, then lanes, then warps
 *    along the dimensions in `order`, fastest first; where the tile is
 *    larger than what one pass of the program covers, more register bits
 *    repeat the pattern; where it is smaller, lane and warp bits get zero
 *    vectors (copies) and register bits are dropped (no thread keeps two
 *    registers with one element);
 *  - a slice drops one output dimension from every vector (and the
 *    register bits that walked it);
 *  - the pseudo-inverse is Gaussian elimination over the columns in input
 *    order, so it prefers registers, then lanes, then warps;
 *  - "does a conversion keep lanes/warps?" is the solvability of a small
 *    linear system per basis vector of the destination (the set of indices
 *    for which it holds is a subspace, so checking a basis suffices).
 */
#include "plan/layout.h"

#include <stdlib.h>
#include <string.h>

int ly_log2(int64_t n) {
    if (n <= 0 || (n & (n - 1))) return -1;
    int k = 0;
    while ((INT64_C(1) << k) < n) k++;
    return k;
}

/* Bit offset of dimension d in a packed coordinate (row-major). */
static int dim_offset(int rank, const int32_t *shape, int d) {
    int off = 0;
    for (int e = d + 1; e < rank; e++) off += ly_log2(shape[e]);
    return off;
}

uint32_t ly_pack(int rank, const int32_t *shape, const int32_t *c) {
    uint32_t p = 0;
    for (int d = 0; d < rank; d++)
        p |= (uint32_t)c[d] << dim_offset(rank, shape, d);
    return p;
}

void ly_unpack(int rank, const int32_t *shape, uint32_t packed, int32_t *c) {
    for (int d = 0; d < rank; d++)
        c[d] = (int32_t)((packed >> dim_offset(rank, shape, d)) &
                         (uint32_t)(shape[d] - 1));
}

static Layout *new_layout(Arena *ar, LyKind kind, int rank,
                          const int32_t *shape) {
    Layout *l = ar_alloc(ar, sizeof *l);
    l->kind = (uint8_t)kind;
    l->rank = (uint8_t)rank;
    for (int d = 0; d < rank; d++) l->shape[d] = shape[d];
    return l;
}

static void push_basis(Layout *l, LyIn in, uint32_t v) {
    l->basis[in][l->nbits[in]++] = v;
}

/* ---------------------------------------------------------- construction */

static int is_pow2_all(int rank, const int32_t *v, int64_t *prod) {
    *prod = 1;
    for (int d = 0; d < rank; d++) {
        if (ly_log2(v[d]) < 0) return 0;
        *prod *= v[d];
    }
    return 1;
}

static int is_permutation(int rank, const uint8_t *order) {
    unsigned seen = 0;
    for (int d = 0; d < rank; d++) {
        if (order[d] >= rank || (seen >> order[d] & 1)) return 0;
        seen |= 1u << order[d];
    }
    return 1;
}

/* Lays log2(count[d]) bits of input `in` along each dimension in order;
 * pos[d] is how many bits of d are already covered. Bits past the shape
 * give zero vectors (copies) for lanes and warps, and are dropped for
 * registers. */
static void lay_bits(Layout *l, LyIn in, const int32_t *count, int *pos) {
    for (int i = 0; i < l->rank; i++) {
        int d = l->order[i];
        int dbits = ly_log2(l->shape[d]);
        int off = dim_offset(l->rank, l->shape, d);
        for (int j = ly_log2(count[d]); j > 0; j--, pos[d]++) {
            if (pos[d] < dbits)
                push_basis(l, in, 1u << (off + pos[d]));
            else if (in != LY_REG)
                push_basis(l, in, 0);
        }
    }
}

Layout *ly_blocked(Arena *ar, int rank, const int32_t *shape,
                   const int32_t *spt, const int32_t *tpw,
                   const int32_t *wpc, const uint8_t *order) {
    int64_t numel, nspt, ntpw, nwpc;
    if (rank < 1 || rank > IR_MAXRANK || !is_pow2_all(rank, shape, &numel) ||
        !is_pow2_all(rank, spt, &nspt) || !is_pow2_all(rank, tpw, &ntpw) ||
        !is_pow2_all(rank, wpc, &nwpc) || ntpw != 32 || nwpc > 32 ||
        numel > (INT64_C(1) << 30) || !is_permutation(rank, order))
        return NULL;
    Layout *l = new_layout(ar, LY_BLOCKED, rank, shape);
    for (int d = 0; d < rank; d++) {
        l->spt[d] = spt[d];
        l->tpw[d] = tpw[d];
        l->wpc[d] = wpc[d];
        l->order[d] = order[d];
    }
    int pos[IR_MAXRANK] = {0};
    lay_bits(l, LY_REG, spt, pos);
    lay_bits(l, LY_LANE, tpw, pos);
    lay_bits(l, LY_WARP, wpc, pos);
    /* The rest of the tile: the program tile repeats over registers,
     * fastest dimension first. */
    for (int i = 0; i < rank; i++) {
        int d = order[i];
        int off = dim_offset(rank, shape, d);
        for (; pos[d] < ly_log2(shape[d]); pos[d]++)
            push_basis(l, LY_REG, 1u << (off + pos[d]));
    }
    return l;
}

Layout *ly_blocked_default(Arena *ar, int rank, const int32_t *shape,
                           int warps, int vec, const uint8_t *order) {
    int32_t spt[IR_MAXRANK], tpw[IR_MAXRANK], wpc[IR_MAXRANK];
    if (rank < 1 || rank > IR_MAXRANK || ly_log2(warps) < 0 ||
        ly_log2(vec) < 0 || !is_permutation(rank, order))
        return NULL;
    for (int d = 0; d < rank; d++) spt[d] = tpw[d] = wpc[d] = 1;
    int fast = order[0];
    spt[fast] = vec < shape[fast] ? vec : shape[fast];
    /* Lanes, then warps, go along the dimensions fastest first, each
     * taking what the dimension still needs; the slowest takes the rest. */
    int64_t lanes = 32, wps = warps;
    for (int i = 0; i < rank - 1; i++) {
        int d = order[i];
        int64_t need = shape[d] / spt[d];
        tpw[d] = (int32_t)(need < lanes ? need : lanes);
        lanes /= tpw[d];
        int64_t wneed = need / tpw[d] > 0 ? need / tpw[d] : 1;
        wpc[d] = (int32_t)(wneed < wps ? wneed : wps);
        wps /= wpc[d];
    }
    tpw[order[rank - 1]] = (int32_t)lanes;
    wpc[order[rank - 1]] = (int32_t)wps;
    return ly_blocked(ar, rank, shape, spt, tpw, wpc, order);
}

/* Removes dimension `dim` from packed coordinate v of `shape` (rank r). */
static uint32_t drop_dim(int rank, const int32_t *shape, int dim, uint32_t v) {
    int32_t c[IR_MAXRANK], nshape[IR_MAXRANK], nc[IR_MAXRANK];
    ly_unpack(rank, shape, v, c);
    for (int d = 0, j = 0; d < rank; d++)
        if (d != dim) {
            nshape[j] = shape[d];
            nc[j++] = c[d];
        }
    return ly_pack(rank - 1, nshape, nc);
}

Layout *ly_slice(Arena *ar, const Layout *parent, int dim) {
    if (parent->rank < 2 || dim < 0 || dim >= parent->rank) return NULL;
    int32_t shape[IR_MAXRANK];
    for (int d = 0, j = 0; d < parent->rank; d++)
        if (d != dim) shape[j++] = parent->shape[d];
    Layout *l = new_layout(ar, LY_SLICE, parent->rank - 1, shape);
    l->parent = parent;
    l->slice_dim = dim;
    for (int in = 0; in < LY_NIN; in++)
        for (int i = 0; i < parent->nbits[in]; i++) {
            uint32_t v = drop_dim(parent->rank, parent->shape, dim,
                                  parent->basis[in][i]);
            if (v || in != LY_REG) push_basis(l, (LyIn)in, v);
        }
    return l;
}

Layout *ly_linear(Arena *ar, int rank, const int32_t *shape,
                  const uint8_t nbits[LY_NIN],
                  const uint32_t basis[LY_NIN][LY_MAXBITS]) {
    Layout *l = new_layout(ar, LY_LINEAR, rank, shape);
    for (int in = 0; in < LY_NIN; in++) {
        l->nbits[in] = nbits[in];
        for (int i = 0; i < nbits[in]; i++) l->basis[in][i] = basis[in][i];
    }
    return l;
}

Layout *ly_reshaped_family(Arena *ar, const Layout *l, const int32_t *shape) {
    int same = 1;
    for (int d = 0; d < l->rank; d++) same &= l->shape[d] == shape[d];
    if (same) return (Layout *)l;
    if (l->kind == LY_BLOCKED)
        return ly_blocked(ar, l->rank, shape, l->spt, l->tpw, l->wpc, l->order);
    if (l->kind == LY_SLICE) {
        int32_t pshape[IR_MAXRANK];
        for (int d = 0, j = 0; d < l->parent->rank; d++)
            pshape[d] = d == l->slice_dim ? l->parent->shape[d] : shape[j++];
        const Layout *p = ly_reshaped_family(ar, l->parent, pshape);
        return p ? ly_slice(ar, p, l->slice_dim) : NULL;
    }
    if (l->kind == LY_MMA) {
        Layout *m = ly_mma(ar, shape, l->mma_k, l->mma_warps);
        if (m) m->wgmma = l->wgmma;
        ly_mma_low(m, l->mma_low);
        return m;
    }
    if (l->kind == LY_DOT_OP) {
        /* The accumulator keeps its other dimension; K follows the operand. */
        int32_t ashape[2] = {l->parent->shape[0], l->parent->shape[1]};
        ashape[l->op_idx] = shape[l->op_idx];
        const Layout *acc = ly_reshaped_family(ar, l->parent, ashape);
        return acc ? ly_dot_operand(ar, acc, l->op_idx, shape,
                                    l->kwidth ? 32 / l->kwidth : 32)
                   : NULL;
    }
    return NULL;
}

Layout *ly_permute(Arena *ar, const Layout *l, const int64_t *perm) {
    int32_t shape[IR_MAXRANK];
    int inv[IR_MAXRANK];
    for (int i = 0; i < l->rank; i++) {
        shape[i] = l->shape[perm[i]];
        inv[perm[i]] = i;
    }
    if (l->kind == LY_BLOCKED) {
        int32_t spt[IR_MAXRANK], tpw[IR_MAXRANK], wpc[IR_MAXRANK];
        uint8_t order[IR_MAXRANK];
        for (int i = 0; i < l->rank; i++) {
            spt[i] = l->spt[perm[i]];
            tpw[i] = l->tpw[perm[i]];
            wpc[i] = l->wpc[perm[i]];
            order[i] = (uint8_t)inv[l->order[i]];
        }
        return ly_blocked(ar, l->rank, shape, spt, tpw, wpc, order);
    }
    Layout *r = new_layout(ar, LY_LINEAR, l->rank, shape);
    for (int in = 0; in < LY_NIN; in++)
        for (int i = 0; i < l->nbits[in]; i++) {
            int32_t c[IR_MAXRANK], pc[IR_MAXRANK];
            ly_unpack(l->rank, l->shape, l->basis[in][i], c);
            for (int d = 0; d < l->rank; d++) pc[d] = c[perm[d]];
            push_basis(r, (LyIn)in, ly_pack(l->rank, shape, pc));
        }
    return r;
}

Layout *ly_reshape(Arena *ar, const Layout *l, int rank, const int32_t *shape) {
    int same = rank == l->rank;
    for (int d = 0; same && d < rank; d++) same = l->shape[d] == shape[d];
    if (same) return (Layout *)l;
    return ly_linear(ar, rank, shape, l->nbits, l->basis);
}

/* ---------------------------------------------------------------- queries */

int ly_size(const Layout *l, LyIn d) { return 1 << l->nbits[d]; }

uint32_t ly_apply(const Layout *l, LyIndex x) {
    uint32_t in[LY_NIN] = {x.reg, x.lane, x.warp}, c = 0;
    for (int d = 0; d < LY_NIN; d++)
        for (int i = 0; i < l->nbits[d]; i++)
            if (in[d] >> i & 1) c ^= l->basis[d][i];
    return c;
}

void ly_coord(const Layout *l, LyIndex x, int32_t *c) {
    ly_unpack(l->rank, l->shape, ly_apply(l, x), c);
}

int ly_eq(const Layout *a, const Layout *b) {
    if (a == b) return 1;
    if (!a || !b || a->rank != b->rank) return 0;
    for (int d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d]) return 0;
    for (int in = 0; in < LY_NIN; in++) {
        if (a->nbits[in] != b->nbits[in]) return 0;
        for (int i = 0; i < a->nbits[in]; i++)
            if (a->basis[in][i] != b->basis[in][i]) return 0;
    }
    return 1;
}

uint32_t ly_hw_pack(const Layout *l, LyIndex x) {
    return x.reg | x.lane << l->nbits[LY_REG] |
           x.warp << (l->nbits[LY_REG] + l->nbits[LY_LANE]);
}

LyIndex ly_hw_unpack(const Layout *l, uint32_t p) {
    int r = l->nbits[LY_REG], n = l->nbits[LY_LANE], w = l->nbits[LY_WARP];
    return (LyIndex){p & ((1u << r) - 1), p >> r & ((1u << n) - 1),
                     p >> (r + n) & ((1u << w) - 1)};
}

static int coord_bits(const Layout *l) {
    int n = 0;
    for (int d = 0; d < l->rank; d++) n += ly_log2(l->shape[d]);
    return n;
}

LyMap ly_map(const Layout *l) {
    LyMap m = {0, coord_bits(l), {0}};
    for (int in = 0; in < LY_NIN; in++)
        for (int i = 0; i < l->nbits[in]; i++) m.col[m.nin++] = l->basis[in][i];
    return m;
}

uint32_t ly_map_apply(const LyMap *m, uint32_t x) {
    uint32_t y = 0;
    for (int i = 0; i < m->nin; i++)
        if (x >> i & 1) y ^= m->col[i];
    return y;
}

LyMap ly_map_compose(const LyMap *f, const LyMap *g) {
    LyMap h = {g->nin, f->nout, {0}};
    for (int i = 0; i < g->nin; i++) h.col[i] = ly_map_apply(f, g->col[i]);
    return h;
}

/* Row echelon form of a set of columns, remembering for each pivot which
 * input combination produced it. Columns enter in input order, so the
 * pivots are the lowest independent inputs. */
typedef struct Echelon {
    int n;
    uint32_t vec[32];    /* reduced vector; its highest bit is its pivot */
    uint32_t combo[32];  /* inputs XORed to make it */
} Echelon;

static int top_bit(uint32_t v) { return 31 - __builtin_clz(v); }

/* Reduces v against e; *combo collects the inputs used. */
static uint32_t ech_reduce(const Echelon *e, uint32_t v, uint32_t *combo) {
    for (int i = 0; i < e->n; i++)
        if (v >> top_bit(e->vec[i]) & 1) {
            v ^= e->vec[i];
            *combo ^= e->combo[i];
        }
    return v;
}

/* Adds column v (input combination `combo`); returns 1 when independent.
 * Keeps pivots sorted high to low so that one pass of ech_reduce works. */
static int ech_add(Echelon *e, uint32_t v, uint32_t combo) {
    v = ech_reduce(e, v, &combo);
    if (!v) return 0;
    int i = e->n++;
    while (i > 0 && top_bit(e->vec[i - 1]) < top_bit(v)) {
        e->vec[i] = e->vec[i - 1];
        e->combo[i] = e->combo[i - 1];
        i--;
    }
    e->vec[i] = v;
    e->combo[i] = combo;
    return 1;
}

/* Solves m(x) = y using only the inputs in `allowed`; returns 0 and x, or
 * -1 when y is out of reach. */
static int solve(const LyMap *m, uint32_t allowed, uint32_t y, uint32_t *x) {
    Echelon e = {0};
    for (int i = 0; i < m->nin; i++)
        if (allowed >> i & 1) ech_add(&e, m->col[i], 1u << i);
    uint32_t combo = 0;
    if (ech_reduce(&e, y, &combo)) return -1;
    *x = combo;
    return 0;
}

int ly_rank(const uint32_t *v, int n) {
    Echelon e = {0};
    int rank = 0;
    for (int i = 0; i < n; i++) rank += ech_add(&e, v[i], 0);
    return rank;
}

int ly_map_pinv(const LyMap *m, LyMap *p) {
    Echelon e = {0};
    int rank = 0;
    for (int i = 0; i < m->nin; i++) rank += ech_add(&e, m->col[i], 1u << i);
    p->nin = m->nout;
    p->nout = m->nin;
    for (int b = 0; b < m->nout; b++) {
        uint32_t combo = 0;
        p->col[b] = ech_reduce(&e, 1u << b, &combo) ? 0 : combo;
    }
    return rank;
}

const char *ly_check(const Layout *l, int warps) {
    if (!l || l->rank < 1 || l->rank > IR_MAXRANK) return "rank out of range";
    int bits = 0;
    for (int d = 0; d < l->rank; d++) {
        if (l->shape[d] < 1 || (l->shape[d] & (l->shape[d] - 1)))
            return "an extent is not a power of two";
        bits += ly_log2(l->shape[d]);
    }
    if (bits > 20) return "more than 2^20 elements";
    for (int d = 0; d < LY_NIN; d++)
        if (l->nbits[d] > LY_MAXBITS) return "too many bits of a hardware index";
    if (warps > 0 && (l->nbits[LY_LANE] != 5 || (1 << l->nbits[LY_WARP]) != warps))
        return "not 32 lanes and the program's warps";
    /* row echelon over F2: pivot[b] holds a vector whose highest bit is b */
    uint32_t pivot[32] = {0};
    int span = 0;
    for (int d = 0; d < LY_NIN; d++)
        for (int i = 0; i < l->nbits[d]; i++) {
            uint32_t v = l->basis[d][i];
            if (v >> bits) return "a basis vector outside the tile";
            for (int b = bits - 1; b >= 0 && v; b--) {
                if (!(v >> b & 1)) continue;
                if (!pivot[b]) {
                    pivot[b] = v;
                    span++;
                    v = 0;
                } else {
                    v ^= pivot[b];
                }
            }
        }
    return span == bits ? NULL : "not surjective: some element is held by no thread";
}

int ly_map_injective(const LyMap *m) {
    Echelon e = {0};
    int rank = 0;
    for (int i = 0; i < m->nin; i++) rank += ech_add(&e, m->col[i], 1u << i);
    return rank == m->nin;
}

LyIndex ly_locate(const Layout *l, uint32_t packed) {
    LyMap m = ly_map(l), p;
    ly_map_pinv(&m, &p);
    return ly_hw_unpack(l, ly_map_apply(&p, packed));
}

/* Mask of the packed hardware-index bits of the input dims in `keep`. */
static uint32_t kept_bits(const Layout *l, unsigned keep) {
    uint32_t mask = 0;
    int off = 0;
    for (int in = 0; in < LY_NIN; in++) {
        if (keep >> in & 1) mask |= ((1u << l->nbits[in]) - 1) << off;
        off += l->nbits[in];
    }
    return mask;
}

int ly_cvt_source(const Layout *src, const Layout *dst, unsigned keep,
                  LyIndex x, LyIndex *out) {
    LyMap m = ly_map(src);
    uint32_t kept = kept_bits(src, keep);
    LyIndex fixed = {keep >> LY_REG & 1 ? x.reg : 0,
                     keep >> LY_LANE & 1 ? x.lane : 0,
                     keep >> LY_WARP & 1 ? x.warp : 0};
    uint32_t base = ly_hw_pack(src, fixed);
    if ((base & kept) != base) return -1;  /* x's index does not exist in src */
    uint32_t want = ly_apply(dst, x) ^ ly_map_apply(&m, base), free = 0;
    if (solve(&m, ~kept & ((m.nin < 32 ? 1u << m.nin : 0) - 1), want, &free))
        return -1;
    *out = ly_hw_unpack(src, base | free);
    return 0;
}

/* True when every element dst holds at x is held in src by an index that
 * agrees with x on the dims in `keep`; linear in x, so a basis suffices. */
static int keeps(const Layout *src, const Layout *dst, unsigned keep) {
    LyIndex out;
    for (int in = 0; in < LY_NIN; in++)
        for (int i = 0; i < dst->nbits[in]; i++) {
            uint32_t bit = 1u << i;
            LyIndex x = {in == LY_REG ? bit : 0, in == LY_LANE ? bit : 0,
                         in == LY_WARP ? bit : 0};
            if (ly_cvt_source(src, dst, keep, x, &out)) return 0;
        }
    return 1;
}

int ly_cvt_moves(const Layout *src, const Layout *dst) {
    if (ly_eq(src, dst)) return LY_MOVE_NONE;
    int moves = LY_MOVE_REG;
    if (!keeps(src, dst, 1u << LY_LANE | 1u << LY_WARP)) moves |= LY_MOVE_LANE;
    if (!keeps(src, dst, 1u << LY_WARP)) moves |= LY_MOVE_WARP;
    return moves;
}

int ly_vec_width(const Layout *l, int dim) {
    uint32_t unit = 1u << dim_offset(l->rank, l->shape, dim);
    int dbits = ly_log2(l->shape[dim]), k = 0;
    while (k < l->nbits[LY_REG] && k < dbits && l->basis[LY_REG][k] == unit << k)
        k++;
    return 1 << k;
}

/* The dimension a single-bit packed coordinate walks, or -1. */
static int dim_of(const Layout *l, uint32_t v) {
    if (!v || (v & (v - 1))) return -1;
    for (int d = 0; d < l->rank; d++) {
        int off = dim_offset(l->rank, l->shape, d);
        if (v >> off && top_bit(v) < off + ly_log2(l->shape[d])) return d;
    }
    return -1;
}

int ly_fastest_dim(const Layout *l) {
    int d = l->nbits[LY_REG] ? dim_of(l, l->basis[LY_REG][0]) : -1;
    if (d < 0 && l->nbits[LY_LANE]) d = dim_of(l, l->basis[LY_LANE][0]);
    return d < 0 ? l->rank - 1 : d;
}

/* --------------------------------------------------------------- printing */

static void print_vec(FILE *out, int rank, const int32_t *v) {
    fputc('[', out);
    for (int d = 0; d < rank; d++) fprintf(out, "%s%d", d ? ", " : "", (int)v[d]);
    fputc(']', out);
}

static void print_list(FILE *out, const char *name, int rank, const int32_t *v) {
    fprintf(out, "%s=", name);
    print_vec(out, rank, v);
}

void ly_print(FILE *out, const Layout *l) {
    if (l->kind == LY_BLOCKED) {
        int32_t order[IR_MAXRANK];
        for (int d = 0; d < l->rank; d++) order[d] = l->order[d];
        fputs("#blocked<", out);
        print_list(out, "spt", l->rank, l->spt);
        print_list(out, ", tpw", l->rank, l->tpw);
        print_list(out, ", wpc", l->rank, l->wpc);
        print_list(out, ", order", l->rank, order);
        fputc('>', out);
    } else if (l->kind == LY_SLICE) {
        fprintf(out, "#slice<dim=%d, ", l->slice_dim);
        ly_print(out, l->parent);
        fputc('>', out);
    } else if (l->kind == LY_MMA) {
        fprintf(out, "#mma<m16n8k%d, %s", (int)l->mma_k, l->wgmma ? "wgmma, " : "");
        if (l->mma_low[0] || l->mma_low[1])
            fprintf(out, "low=[%d, %d], ", l->mma_low[0], l->mma_low[1]);
        print_list(out, "warps", 2, l->mma_warps);
        fputc('>', out);
    } else if (l->kind == LY_DOT_OP) {
        fprintf(out, "#dot_op<idx=%d, ", l->op_idx);
        if (l->kwidth) fprintf(out, "kwidth=%d, ", l->kwidth);
        ly_print(out, l->parent);
        fputc('>', out);
    } else {
        static const char *names[LY_NIN] = {"reg", "lane", "warp"};
        fputs("#linear<", out);
        for (int in = 0; in < LY_NIN; in++) {
            fprintf(out, "%s%s=[", in ? ", " : "", names[in]);
            for (int i = 0; i < l->nbits[in]; i++) {
                int32_t c[IR_MAXRANK];
                ly_unpack(l->rank, l->shape, l->basis[in][i], c);
                if (i) fputs(", ", out);
                print_vec(out, l->rank, c);
            }
            fputc(']', out);
        }
        fputc('>', out);
    }
}

const char *ly_str(Arena *ar, const Layout *l) {
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f) return "";
    ly_print(f, l);
    fclose(f);
    const char *s = ar_strndup(ar, buf, size);
    free(buf);
    return s;
}
