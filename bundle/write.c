/*
 * write.c — a TlbBundle to bundle bytes.
 *
 * The writer emits the payload in the order docs/bundle.md gives, then the
 * header (magic, version, flags, payload size, payload CRC-32C, header
 * CRC-32C) in front of it. It checks nothing itself: the rules a bundle
 * must follow live in one place, the reader, and the writer runs the
 * reader over what it produced before handing it out. A bundle tilec writes
 * is therefore one libtile accepts, by construction.
 */
#include "bundle/bundle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Wr {
    uint8_t *p;
    size_t n, cap;
    int oom;
} Wr;

static void put(Wr *w, const void *src, size_t n) {
    if (w->oom || n == 0) return;
    if (w->cap - w->n < n) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap - w->n < n) cap *= 2;
        uint8_t *p = realloc(w->p, cap);
        if (!p) {
            w->oom = 1;
            return;
        }
        w->p = p;
        w->cap = cap;
    }
    memcpy(w->p + w->n, src, n);
    w->n += n;
}

static void put_le(Wr *w, uint64_t v, int nbytes) {
    uint8_t b[8];
    for (int i = 0; i < nbytes; i++) b[i] = (uint8_t)(v >> (8 * i));
    put(w, b, (size_t)nbytes);
}
#define put_u8(w, v) put_le(w, (uint8_t)(v), 1)
#define put_u16(w, v) put_le(w, (uint16_t)(v), 2)
#define put_u32(w, v) put_le(w, (uint32_t)(v), 4)
#define put_u64(w, v) put_le(w, (uint64_t)(v), 8)

/* A name: u32 length and bytes (a NULL name is written empty, which the
 * reader rejects where a name is required). */
static void put_name(Wr *w, const char *s) {
    size_t n = s ? strlen(s) : 0;
    put_u32(w, n);
    put(w, s, n);
}

static void put_expr(Wr *w, const TlbExpr *e) {
    put_u32(w, e->n);
    for (uint32_t i = 0; i < e->n; i++) {
        const TlbInsn *in = &e->code[i];
        put_u8(w, in->op);
        if (in->op == TLB_X_CONST) put_u64(w, (uint64_t)in->value);
        if (in->op == TLB_X_PARAM) put_u16(w, in->param);
    }
}

/* Version 5's maps of a variant: u32 count, then each map's fields up to
 * its rank (a rank out of range writes nothing past it: the reader
 * rejects it). */
static void put_tmaps(Wr *w, const TlbVariant *v) {
    put_u32(w, v->ntmaps);
    for (uint32_t t = 0; t < v->ntmaps && v->tmaps; t++) {
        const TlbTmap *m = &v->tmaps[t];
        uint32_t rank = m->rank <= TLB_TMAP_MAXRANK ? m->rank : 0;
        put_u16(w, m->param);
        put_u8(w, m->elem);
        put_u8(w, m->rank);
        put_u8(w, m->swizzle);
        for (uint32_t i = 0; i < rank; i++) put_u32(w, m->box[i]);
        for (uint32_t i = 0; i < rank; i++) put_expr(w, &m->dim[i]);
        for (uint32_t i = 0; i + 1 < rank; i++) put_expr(w, &m->stride[i]);
    }
}

static void put_config(Wr *w, const TlbKernel *k, const TlbConfig *c) {
    put_u32(w, c->warps);
    put_u32(w, c->stages);
    for (uint32_t i = 0; i < k->ncparams; i++) put_u64(w, (uint64_t)c->cvalues[i]);
    for (uint32_t d = 0; d < k->ngrid && d < TLB_MAXDIM; d++) put_expr(w, &c->grid[d]);
    put_u32(w, c->nrequire);
    for (uint32_t i = 0; i < c->nrequire; i++) put_expr(w, &c->require[i]);
    put_u32(w, c->nvariants);
    for (uint32_t i = 0; i < c->nvariants; i++) {
        put_u32(w, c->variants[i].dyn_smem);
        put_name(w, c->variants[i].entry);
        put(w, c->variants[i].guard, k->nparams);
        put_u16(w, c->variants[i].l1_programs);
        put_tmaps(w, &c->variants[i]);
        put_u8(w, c->variants[i].flags);
    }
}

static void put_kernel(Wr *w, const TlbKernel *k) {
    put_name(w, k->name);
    put_u32(w, k->nparams);
    for (uint32_t i = 0; i < k->nparams; i++) {
        put_name(w, k->params[i].name);
        put_u8(w, k->params[i].type);
        put_u8(w, k->params[i].pointee);
        put_u8(w, k->params[i].flags);
    }
    put_u32(w, k->ncparams);
    for (uint32_t i = 0; i < k->ncparams; i++) {
        put_name(w, k->cparams[i].name);
        put_u8(w, k->cparams[i].kind);
        put_u8(w, k->cparams[i].type);
    }
    put_u32(w, k->ntune_key);
    for (uint32_t i = 0; i < k->ntune_key; i++) put_u32(w, k->tune_key[i]);
    put_u32(w, k->ngrid);
    put_u32(w, k->nconfigs);
    for (uint32_t i = 0; i < k->nconfigs; i++) put_config(w, k, &k->configs[i]);
}

static void put_payload(Wr *w, const TlbBundle *b) {
    put_name(w, b->producer);
    put_name(w, b->arch);
    put_u64(w, b->ptx ? b->ptx_size : 0);
    put(w, b->ptx, b->ptx ? (size_t)b->ptx_size : 0);
    put_u32(w, b->ncubins);
    for (uint32_t i = 0; i < b->ncubins; i++) {
        put_name(w, b->cubins[i].arch);
        put_u64(w, b->cubins[i].size);
        put(w, b->cubins[i].image, (size_t)b->cubins[i].size);
    }
    put_u32(w, b->nkernels);
    for (uint32_t i = 0; i < b->nkernels; i++) put_kernel(w, &b->kernels[i]);
}

int tlb_write(const TlbBundle *b, void **data, size_t *size, char *err,
              size_t errlen) {
    *data = NULL;
    *size = 0;
    Wr w = {0};
    uint8_t zero[TLB_HEADER_SIZE] = {0};
    put(&w, zero, sizeof zero);              /* the header, filled below */
    put_payload(&w, b);
    if (w.oom) {
        free(w.p);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    uint64_t payload = w.n - TLB_HEADER_SIZE;
    Wr h = {0};
    put(&h, TLB_MAGIC, 8);
    put_u32(&h, TLB_VERSION);
    put_u32(&h, 0);                           /* flags */
    put_u64(&h, payload);
    put_u32(&h, tlb_crc32c(0, w.p + TLB_HEADER_SIZE, (size_t)payload));
    put_u32(&h, tlb_crc32c(0, h.p, h.n));
    if (h.oom) {
        free(w.p);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    memcpy(w.p, h.p, TLB_HEADER_SIZE);
    free(h.p);

    TlbBundle *check;
    if (tlb_read(w.p, w.n, &check, err, errlen)) {
        free(w.p);
        return -1;
    }
    tlb_free(check);
    *data = w.p;
    *size = w.n;
    return 0;
}
