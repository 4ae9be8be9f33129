/*
 * read.c — bundle bytes to a verified TlbBundle.
 *
 * The reader assumes the file is hostile: it may be truncated, damaged in
 * transit, another program's file, or crafted. So the order is:
 *
 *   1. the header, field by field, each failure with its own message
 *      (foreign file, truncated, newer version, damaged header);
 *   2. the payload's size and CRC-32C, so that any accidental damage is
 *      reported as such before the payload is interpreted at all;
 *   3. the payload itself, by a cursor (Rd) that checks every read
 *      against the end and every count against the bytes left before
 *      allocating (an element is never smaller than its encoding's
 *      minimum, so a count that cannot fit is rejected without a huge
 *      allocation), and every code, index and expression against the
 *      format's rules.
 *
 * Step 3 is what makes a payload with a correct checksum but wrong content
 * (a buggy or malicious writer) harmless: the runtime relies on what the
 * reader verified — expression stacks fit TLB_EXPR_MAXDEPTH, parameter
 * indices are in range — and checks none of it again on the launch path.
 *
 * Everything the bundle points to lives in TlbMem blocks chained from the
 * bundle, freed by tlb_free; the input buffer is not kept.
 */
#include "bundle/bundle.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct TlbMem {
    TlbMem *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

enum { MEM_BLOCK = 64 * 1024 };

typedef struct Rd {
    const uint8_t *base, *p, *end;
    const uint8_t *mark;  /* start of the field being read, for messages */
    TlbBundle *b;
    char *err;
    size_t errlen;
    int failed;
    const char *kernel;   /* the kernel being read, for messages */
    uint32_t version;     /* the bundle's format version */
} Rd;

static void fail_at(Rd *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void fail_at(Rd *r, const char *fmt, ...) {
    if (r->failed) return;
    r->failed = 1;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    long off = (long)(r->mark - r->base) + TLB_HEADER_SIZE;
    if (r->kernel)
        snprintf(r->err, r->errlen, "invalid Tile bundle (byte %ld): kernel '%s': %s",
                 off, r->kernel, msg);
    else
        snprintf(r->err, r->errlen, "invalid Tile bundle (byte %ld): %s", off, msg);
}

/* Zeroed memory owned by the bundle; NULL (and the reader failed) when out
 * of memory. */
/* Reports and leaves the current (void) function. */
#define FAIL(...)                                                           \
    do {                                                                    \
        fail_at(r, __VA_ARGS__);                                            \
        return;                                                             \
    } while (0)

static void *rd_alloc(Rd *r, size_t n) {
    n = (n + 15) & ~(size_t)15;
    TlbMem *m = r->b->mem;
    if (!m || m->cap - m->used < n) {
        size_t cap = n > MEM_BLOCK / 4 ? n : MEM_BLOCK;
        m = calloc(1, sizeof *m + cap);
        if (!m) {
            fail_at(r, "out of memory");
            return NULL;
        }
        m->cap = cap;
        /* A dedicated block goes behind the current one so that the
         * current block's free space stays usable. */
        if (cap == n && r->b->mem) {
            m->next = r->b->mem->next;
            r->b->mem->next = m;
            m->used = n;
            return m->data;
        }
        m->next = r->b->mem;
        r->b->mem = m;
    }
    void *p = m->data + m->used;
    m->used += n;
    return p;
}

/* ---------------------------------------------------------- primitives */

static int need(Rd *r, uint64_t n, const char *what) {
    if (r->failed) return 0;
    if ((uint64_t)(r->end - r->p) < n) {
        fail_at(r, "%s runs past the end of the payload", what);
        return 0;
    }
    return 1;
}

static uint64_t le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static uint64_t rd_uint(Rd *r, int n, const char *what) {
    if (!r->failed) r->mark = r->p;
    if (!need(r, (uint64_t)n, what)) return 0;
    uint64_t v = le(r->p, n);
    r->p += n;
    return v;
}
#define rd_u8(r, w) ((uint8_t)rd_uint(r, 1, w))
#define rd_u16(r, w) ((uint16_t)rd_uint(r, 2, w))
#define rd_u32(r, w) ((uint32_t)rd_uint(r, 4, w))
#define rd_u64(r, w) rd_uint(r, 8, w)

/* A count of elements each at least `min` bytes long; 0 when it cannot fit
 * in what is left (and the reader failed). */
static uint32_t rd_count(Rd *r, size_t min, const char *what) {
    uint32_t n = rd_u32(r, what);
    if (!r->failed && (uint64_t)n * min > (uint64_t)(r->end - r->p)) {
        fail_at(r, "%s %u cannot fit in the %ld bytes left", what, n,
                (long)(r->end - r->p));
        return 0;
    }
    return n;
}

static void *rd_array(Rd *r, uint32_t n, size_t elem) {
    return n ? rd_alloc(r, (size_t)n * elem) : NULL;
}

/* Text of `len` bytes (u32 or u64 length) without NUL bytes, returned
 * NUL-terminated. `nonempty`: an empty text is an error. */
static const char *rd_text(Rd *r, int lenbytes, const char *what, int nonempty,
                           uint64_t *lenp) {
    uint64_t len = rd_uint(r, lenbytes, what);
    if (!need(r, len, what)) return NULL;
    if (nonempty && len == 0) {
        fail_at(r, "empty %s", what);
        return NULL;
    }
    if (memchr(r->p, 0, (size_t)len)) {
        fail_at(r, "%s contains a NUL byte", what);
        return NULL;
    }
    char *s = rd_alloc(r, (size_t)len + 1);
    if (!s) return NULL;
    memcpy(s, r->p, (size_t)len);
    r->p += len;
    if (lenp) *lenp = len;
    return s;
}
#define rd_name(r, what) rd_text(r, 4, what, 1, NULL)

/* ---------------------------------------------------------- structure */

/* expr: u32 n, then n instructions: u8 op [i64 value | u16 param]. */
static void rd_expr(Rd *r, const TlbKernel *k, TlbExpr *e, const char *what) {
    e->n = rd_count(r, 1, what);
    if (!r->failed && e->n == 0) fail_at(r, "empty %s", what);
    e->code = rd_array(r, e->n, sizeof *e->code);
    int depth = 0;
    for (uint32_t i = 0; i < e->n && !r->failed; i++) {
        TlbInsn *in = &e->code[i];
        in->op = rd_u8(r, what);
        int arity = tlb_op_arity((TlbOp)in->op);
        if (r->failed) return;
        if (arity < 0) FAIL("%s: unknown operation %u", what, in->op);
        if (in->op == TLB_X_CONST) in->value = (int64_t)rd_u64(r, what);
        if (in->op == TLB_X_PARAM) {
            in->param = rd_u16(r, what);
            if (r->failed) return;
            if (in->param >= k->nparams)
                FAIL("%s uses parameter %u of %u", what, in->param,
                               k->nparams);
            TlbType t = k->params[in->param].type;
            if (!tlb_type_isint(t) && t != TLB_BOOL)
                FAIL("%s uses parameter '%s' of type %s", what,
                               k->params[in->param].name, tlb_type_name(t));
        }
        if (depth < arity)
            FAIL("%s: operation %u lacks operands", what, in->op);
        depth += 1 - arity;
        if (depth > TLB_EXPR_MAXDEPTH)
            FAIL("%s needs more than %d stack slots", what,
                           TLB_EXPR_MAXDEPTH);
    }
    if (!r->failed && depth != 1)
        fail_at(r, "%s leaves %d values, not 1", what, depth);
}

static int valid_value_type(unsigned t) { return t >= TLB_BOOL && t < TLB_PTR; }
static int valid_pointee(unsigned t) {
    return valid_value_type(t) || t == TLB_F8E4M3 || t == TLB_F8E5M2;
}

static void rd_params(Rd *r, TlbKernel *k) {
    k->nparams = rd_count(r, 7, "parameter count");
    if (k->nparams > 65535) fail_at(r, "%u parameters (at most 65535)", k->nparams);
    k->params = rd_array(r, k->nparams, sizeof *k->params);
    for (uint32_t i = 0; i < k->nparams && !r->failed; i++) {
        TlbParam *p = &k->params[i];
        p->name = rd_name(r, "parameter name");
        p->type = rd_u8(r, "parameter type");
        p->pointee = rd_u8(r, "parameter pointee");
        p->flags = rd_u8(r, "parameter flags");
        if (r->failed) return;
        if (!valid_value_type(p->type) && p->type != TLB_PTR)
            FAIL("parameter '%s' has unknown type code %u", p->name,
                           p->type);
        if (p->type == TLB_PTR ? !valid_pointee(p->pointee) : p->pointee != TLB_VOID)
            FAIL("parameter '%s' has invalid pointee type code %u",
                           p->name, p->pointee);
        if (p->flags & ~(unsigned)(TLB_PARAM_STORED | TLB_PARAM_NOSPECIALIZE))
            FAIL("parameter '%s' has unknown flags 0x%x", p->name,
                           p->flags);
        if ((p->flags & TLB_PARAM_STORED) && p->type != TLB_PTR)
            FAIL("parameter '%s' is stored through but is not a pointer",
                           p->name);
    }
}

static void rd_cparams(Rd *r, TlbKernel *k) {
    k->ncparams = rd_count(r, 6, "compile-time parameter count");
    k->cparams = rd_array(r, k->ncparams, sizeof *k->cparams);
    for (uint32_t i = 0; i < k->ncparams && !r->failed; i++) {
        TlbCparam *c = &k->cparams[i];
        c->name = rd_name(r, "compile-time parameter name");
        c->kind = rd_u8(r, "compile-time parameter kind");
        c->type = rd_u8(r, "compile-time parameter type");
        if (r->failed) return;
        if (c->kind > TLB_CPARAM_TYPE)
            FAIL("compile-time parameter '%s' has unknown kind %u",
                           c->name, c->kind);
        if (c->kind == TLB_CPARAM_INT ? !tlb_type_isint(c->type) : c->type != TLB_VOID)
            FAIL("compile-time parameter '%s' has invalid type code %u",
                           c->name, c->type);
    }
}

/* Parameter p may have a guard: a pointer, or an integer that is not
 * @nospecialize. */
static int guardable(const TlbParam *p) {
    return p->type == TLB_PTR ||
           (tlb_type_isint(p->type) && !(p->flags & TLB_PARAM_NOSPECIALIZE));
}

/* Version 1's assumption bits: every pointer 16-byte aligned (1), every
 * integer without @nospecialize divisible by 16 (2); as a guard. */
static const uint8_t *v1_guard(Rd *r, const TlbKernel *k, uint32_t assume,
                               const char *entry) {
    uint8_t *g = rd_alloc(r, k->nparams + 1);
    if (!g) return NULL;
    if (assume & ~3u) fail_at(r, "variant '%s' has unknown assumptions 0x%x", entry, assume);
    for (uint32_t i = 0; i < k->nparams; i++) {
        const TlbParam *p = &k->params[i];
        uint32_t bit = p->type == TLB_PTR ? 1u : 2u;
        g[i] = (uint8_t)(guardable(p) && (assume & bit) ? 4 : 0);
    }
    return g;
}

/* A guard on parameter p of g (log2 of a multiple, or from version 3 on
 * TLB_GUARD_ONE on an integer) is one it can have. */
static void check_guard(Rd *r, const TlbParam *p, uint8_t g, const char *entry) {
    if (g == TLB_GUARD_ONE && r->version >= 3) {
        if (!guardable(p) || p->type == TLB_PTR)
            fail_at(r, "variant '%s' guards parameter '%s' to equal 1, which only an "
                    "integer without @nospecialize can be", entry, p->name);
        return;
    }
    if (g > TLB_GUARD_MAX)
        fail_at(r, "variant '%s' guards parameter '%s' with 2^%u (at most 2^%u)", entry,
                p->name, g, TLB_GUARD_MAX);
    if (g && !guardable(p))
        fail_at(r, "variant '%s' guards parameter '%s', which cannot have a guard",
                entry, p->name);
}

/* Does configuration c give some `type` parameter the value t (a pointer
 * `*T` of the signature may point to another type in c)? */
static int type_param_is(const TlbKernel *k, const TlbConfig *c, unsigned t) {
    for (uint32_t i = 0; i < k->ncparams; i++)
        if (k->cparams[i].kind == TLB_CPARAM_TYPE && c->cvalues[i] == (int64_t)t) return 1;
    return 0;
}

/* Element types a tensor map can describe (the bytes are copied, so the
 * f8 types as UINT8): every pointee but bool. */
static int tmap_elem_ok(unsigned t) { return valid_pointee(t) && t != TLB_BOOL; }

/* The parameter and element type of tensor map m (number `t`). */
static void check_tmap_param(Rd *r, const TlbKernel *k, const TlbConfig *c,
                             const TlbTmap *m, uint32_t t, const char *entry) {
    if (m->param >= k->nparams)
        FAIL("variant '%s': tensor map %u names parameter %u of %u", entry, t, m->param,
             k->nparams);
    const TlbParam *p = &k->params[m->param];
    if (p->type != TLB_PTR)
        FAIL("variant '%s': tensor map %u is of parameter '%s', which is not a pointer",
             entry, t, p->name);
    if (!tmap_elem_ok(m->elem))
        FAIL("variant '%s': tensor map %u of '%s' has element type code %u, which a "
             "tensor map cannot describe", entry, t, p->name, m->elem);
    if (m->elem != p->pointee && !type_param_is(k, c, m->elem) &&
        tlb_type_bytes((TlbType)m->elem) != tlb_type_bytes((TlbType)p->pointee))
        FAIL("variant '%s': tensor map %u of '%s' has %s elements, but '%s' points to %s",
             entry, t, p->name, tlb_type_name((TlbType)m->elem), p->name,
             tlb_type_name((TlbType)p->pointee));
}

/* The box and swizzle of tensor map m (number `t`). */
static void check_tmap_box(Rd *r, const TlbKernel *k, const TlbTmap *m, uint32_t t,
                           const char *entry) {
    const char *name = k->params[m->param].name;
    uint32_t bytes = (uint32_t)tlb_type_bytes((TlbType)m->elem);
    for (uint32_t i = 0; i < m->rank; i++)
        if (m->box[i] < 1 || m->box[i] > 256)
            FAIL("variant '%s': tensor map %u of '%s' has a box of %u elements in "
                 "dimension %u (1 to 256)", entry, t, name, m->box[i], i);
    if (m->box[0] * bytes % 16)
        FAIL("variant '%s': tensor map %u of '%s': its box's rows of %u bytes are not a "
             "multiple of 16", entry, t, name, m->box[0] * bytes);
    if (m->swizzle != 0 && m->swizzle != 32 && m->swizzle != 64 && m->swizzle != 128)
        FAIL("variant '%s': tensor map %u of '%s' has swizzle %u (0, 32, 64 or 128)", entry,
             t, name, m->swizzle);
    if (m->swizzle && m->box[0] * bytes > m->swizzle)
        FAIL("variant '%s': tensor map %u of '%s': its box's rows of %u bytes exceed its "
             "%u-byte swizzle", entry, t, name, m->box[0] * bytes, m->swizzle);
}

/* tmap: u16 param, u8 elem, u8 rank, u8 swizzle, u32 box[rank],
 * expr dim[rank], expr stride[rank - 1]. */
static void rd_tmap(Rd *r, const TlbKernel *k, const TlbConfig *c, TlbTmap *m, uint32_t t,
                    const char *entry) {
    m->param = rd_u16(r, "tensor map parameter");
    m->elem = rd_u8(r, "tensor map element type");
    m->rank = rd_u8(r, "tensor map rank");
    m->swizzle = rd_u8(r, "tensor map swizzle");
    if (r->failed) return;
    check_tmap_param(r, k, c, m, t, entry);
    if (!r->failed && (m->rank < 1 || m->rank > TLB_TMAP_MAXRANK))
        FAIL("variant '%s': tensor map %u of '%s' has rank %u (1 to %d)", entry, t,
             k->params[m->param].name, m->rank, TLB_TMAP_MAXRANK);
    for (uint32_t i = 0; i < m->rank && !r->failed; i++) m->box[i] = rd_u32(r, "tensor map box");
    if (!r->failed) check_tmap_box(r, k, m, t, entry);
    for (uint32_t i = 0; i < m->rank && !r->failed; i++)
        rd_expr(r, k, &m->dim[i], "tensor map dimension expression");
    for (uint32_t i = 0; i + 1 < m->rank && !r->failed; i++)
        rd_expr(r, k, &m->stride[i], "tensor map stride expression");
}

/* Version 5 on: u32 ntmaps, tmap tmaps[ntmaps] (at least 14 bytes each). */
static void rd_tmaps(Rd *r, const TlbKernel *k, const TlbConfig *c, TlbVariant *v) {
    v->ntmaps = rd_count(r, 14, "tensor map count");
    if (!r->failed && v->ntmaps > TLB_MAX_TMAPS)
        FAIL("variant '%s' has %u tensor maps (at most %d)", v->entry, v->ntmaps,
             TLB_MAX_TMAPS);
    TlbTmap *m = rd_array(r, v->ntmaps, sizeof *m);
    for (uint32_t t = 0; t < v->ntmaps && !r->failed; t++) rd_tmap(r, k, c, &m[t], t, v->entry);
    v->tmaps = m;
}

static void rd_variant(Rd *r, const TlbKernel *k, const TlbConfig *c, TlbVariant *v) {
    uint32_t assume = r->version == 1 ? rd_u32(r, "variant assumptions") : 0;
    v->dyn_smem = rd_u32(r, "variant shared memory");
    v->entry = rd_name(r, "variant entry name");
    if (r->failed) return;
    if (r->version == 1) {
        v->guard = v1_guard(r, k, assume, v->entry);
        return;
    }
    if (!need(r, k->nparams, "variant guard")) return;
    uint8_t *g = rd_alloc(r, k->nparams + 1);
    if (!g) return;
    memcpy(g, r->p, k->nparams);
    r->p += k->nparams;
    for (uint32_t i = 0; i < k->nparams; i++) check_guard(r, &k->params[i], g[i], v->entry);
    v->guard = g;
    if (r->version >= 4) v->l1_programs = rd_u16(r, "variant L1 programs");
    if (r->version >= 5) rd_tmaps(r, k, c, v);
    if (r->version >= 6) v->flags = rd_u8(r, "variant flags");
    if (!r->failed && (v->flags & ~TLB_VARIANT_FLAGS))
        FAIL("variant '%s' has unknown flags 0x%x", v->entry, v->flags);
    if (!r->failed && (v->flags & TLB_VARIANT_PERSISTENT) && !k->ngrid)
        FAIL("variant '%s' is persistent but its kernel has no grid clause", v->entry);
}

static int guard_facts(const TlbKernel *k, const TlbVariant *v) {
    int n = 0;
    for (uint32_t i = 0; i < k->nparams; i++) n += v->guard[i] != 0;
    return n;
}

/* Version 1 left the order to the runtime: most assumptions first, then
 * the bundle's order (insertion sort: stable). */
static void order_v1(const TlbKernel *k, TlbConfig *c) {
    for (uint32_t i = 1; i < c->nvariants; i++) {
        TlbVariant v = c->variants[i];
        uint32_t j = i;
        for (; j > 0 && guard_facts(k, &c->variants[j - 1]) < guard_facts(k, &v); j--)
            c->variants[j] = c->variants[j - 1];
        c->variants[j] = v;
    }
}

static void rd_config(Rd *r, const TlbKernel *k, TlbConfig *c) {
    c->warps = rd_u32(r, "warps");
    c->stages = rd_u32(r, "stages");
    if (!r->failed && (c->warps < 1 || c->warps > 32))
        FAIL("%u warps (expected 1 to 32)", c->warps);
    if (!need(r, (uint64_t)k->ncparams * 8, "compile-time values")) return;
    c->cvalues = rd_array(r, k->ncparams, sizeof *c->cvalues);
    for (uint32_t i = 0; i < k->ncparams && !r->failed; i++) {
        int64_t v = c->cvalues[i] = (int64_t)rd_u64(r, "compile-time value");
        const TlbCparam *cp = &k->cparams[i];
        if (cp->kind == TLB_CPARAM_BOOL && v != 0 && v != 1)
            FAIL("bool '%s' = %lld", cp->name, (long long)v);
        if (cp->kind == TLB_CPARAM_TYPE && !valid_pointee((unsigned)v))   /* f8 too */
            FAIL("type '%s' has unknown type code %lld", cp->name,
                           (long long)v);
    }
    for (uint32_t d = 0; d < k->ngrid; d++) rd_expr(r, k, &c->grid[d], "grid expression");
    c->nrequire = rd_count(r, 5, "@require count");
    c->require = rd_array(r, c->nrequire, sizeof *c->require);
    for (uint32_t i = 0; i < c->nrequire; i++) rd_expr(r, k, &c->require[i], "@require expression");
    c->nvariants = rd_count(r, r->version == 1 ? 12 : 8, "variant count");
    if (!r->failed && c->nvariants == 0) fail_at(r, "a configuration without variants");
    c->variants = rd_array(r, c->nvariants, sizeof *c->variants);
    for (uint32_t i = 0; i < c->nvariants && !r->failed; i++) rd_variant(r, k, c, &c->variants[i]);
    if (!r->failed && r->version == 1) order_v1(k, c);
}

static void rd_kernel(Rd *r, TlbKernel *k) {
    k->name = rd_name(r, "kernel name");
    r->kernel = k->name;
    rd_params(r, k);
    rd_cparams(r, k);
    k->ntune_key = rd_count(r, 4, "tune key length");
    k->tune_key = rd_array(r, k->ntune_key, sizeof *k->tune_key);
    for (uint32_t i = 0; i < k->ntune_key && !r->failed; i++) {
        k->tune_key[i] = rd_u32(r, "tune key");
        if (!r->failed && k->tune_key[i] >= k->nparams)
            FAIL("tune key names parameter %u of %u", k->tune_key[i],
                           k->nparams);
    }
    k->ngrid = rd_u32(r, "grid rank");
    if (!r->failed && k->ngrid > TLB_MAXDIM)
        FAIL("grid of %u dimensions (at most 3)", k->ngrid);
    k->nconfigs = rd_count(r, 20, "configuration count");
    if (!r->failed && k->nconfigs == 0) FAIL("no configurations");
    k->configs = rd_array(r, k->nconfigs, sizeof *k->configs);
    for (uint32_t i = 0; i < k->nconfigs && !r->failed; i++) rd_config(r, k, &k->configs[i]);
    if (!r->failed) r->kernel = NULL;
}

static void rd_payload(Rd *r, TlbBundle *b) {
    b->producer = rd_text(r, 4, "producer", 0, NULL);
    b->arch = rd_name(r, "architecture");
    if (!r->failed && tlb_parse_arch(b->arch, NULL) < 0)
        FAIL("unknown architecture '%s'", b->arch);
    b->ptx = rd_text(r, 8, "PTX module", 0, &b->ptx_size);
    b->ncubins = rd_count(r, 12, "cubin count");
    b->cubins = rd_array(r, b->ncubins, sizeof *b->cubins);
    for (uint32_t i = 0; i < b->ncubins && !r->failed; i++) {
        TlbCubin *c = &b->cubins[i];
        c->arch = rd_name(r, "cubin architecture");
        if (!r->failed && tlb_parse_arch(c->arch, NULL) < 0)
            FAIL("unknown cubin architecture '%s'", c->arch);
        c->size = rd_u64(r, "cubin size");
        if (!need(r, c->size, "cubin")) return;
        if (c->size == 0) FAIL("empty cubin for %s", c->arch);
        uint8_t *img = rd_alloc(r, (size_t)c->size);
        if (!img) return;
        memcpy(img, r->p, (size_t)c->size);
        c->image = img;
        r->p += c->size;
    }
    b->nkernels = rd_count(r, 24, "kernel count");
    b->kernels = rd_array(r, b->nkernels, sizeof *b->kernels);
    for (uint32_t i = 0; i < b->nkernels && !r->failed; i++) {
        rd_kernel(r, &b->kernels[i]);
        for (uint32_t j = 0; j < i && !r->failed; j++)
            if (strcmp(b->kernels[j].name, b->kernels[i].name) == 0)
                fail_at(r, "kernel '%s' appears twice", b->kernels[i].name);
    }
    if (!r->failed && r->p != r->end)
        fail_at(r, "%ld unexpected bytes after the last kernel", (long)(r->end - r->p));
}

/* ------------------------------------------------------------- header */

static int header_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int header_error(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

int tlb_read_header(const void *data, size_t size, uint64_t *payload, char *err,
                    size_t errlen) {
    const uint8_t *d = data;
    size_t m = size < 8 ? size : 8;
    if (size == 0 || memcmp(d, TLB_MAGIC, m) != 0)
        return header_error(err, errlen, "not a Tile bundle (no bundle magic number)");
    if (size < TLB_HEADER_SIZE)
        return header_error(err, errlen, "truncated Tile bundle: %zu bytes, the "
                            "header alone takes %u", size, TLB_HEADER_SIZE);
    uint32_t version = (uint32_t)le(d + 8, 4);
    if (version < TLB_VERSION_OLDEST || version > TLB_VERSION)
        return header_error(err, errlen, "unsupported Tile bundle format version "
                            "%u (this reader understands versions %u to %u)", version,
                            TLB_VERSION_OLDEST, TLB_VERSION);
    if (tlb_crc32c(0, d, 28) != (uint32_t)le(d + 28, 4))
        return header_error(err, errlen, "damaged Tile bundle: header checksum mismatch");
    uint32_t flags = (uint32_t)le(d + 12, 4);
    if (flags)
        return header_error(err, errlen, "unsupported Tile bundle: unknown flags 0x%x",
                            flags);
    *payload = le(d + 16, 8);
    return 0;
}

/* Checks the 32-byte header and the payload's size and checksum. */
static int check_header(const uint8_t *d, size_t size, char *err, size_t errlen) {
    uint64_t payload, have = size - TLB_HEADER_SIZE;
    if (tlb_read_header(d, size, &payload, err, errlen)) return -1;
    if (payload > have)
        return header_error(err, errlen, "truncated Tile bundle: %llu bytes of "
                            "payload expected, %llu present",
                            (unsigned long long)payload, (unsigned long long)have);
    if (payload < have)
        return header_error(err, errlen, "damaged Tile bundle: %llu unexpected "
                            "bytes after the payload",
                            (unsigned long long)(have - payload));
    if (tlb_crc32c(0, d + TLB_HEADER_SIZE, (size_t)payload) != (uint32_t)le(d + 24, 4))
        return header_error(err, errlen, "damaged Tile bundle: payload checksum mismatch");
    return 0;
}

int tlb_read(const void *data, size_t size, TlbBundle **out, char *err,
             size_t errlen) {
    *out = NULL;
    const uint8_t *d = data;
    if (check_header(d, size, err, errlen)) return -1;
    TlbBundle *b = calloc(1, sizeof *b);
    if (!b) return header_error(err, errlen, "out of memory");
    Rd r = {d + TLB_HEADER_SIZE, d + TLB_HEADER_SIZE, d + size, d + TLB_HEADER_SIZE,
            b, err, errlen, 0, NULL, (uint32_t)le(d + 8, 4)};
    rd_payload(&r, b);
    if (r.failed) {
        tlb_free(b);
        return -1;
    }
    *out = b;
    return 0;
}

void tlb_free(TlbBundle *b) {
    if (!b) return;
    for (TlbMem *m = b->mem, *next; m; m = next) {
        next = m->next;
        free(m);
    }
    free(b);
}
