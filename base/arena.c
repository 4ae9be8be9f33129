/*
 * arena.c — bump allocation in chained blocks, and the small buffers built
 * on it (the file helpers are in file.c).
 *
 * Blocks grow geometrically (64 KiB, doubling up to 1 MiB); a request larger
 * than a block gets a block of its own. Every allocation is zeroed and
 * 16-byte aligned, so callers never memset and can store any scalar type.
 *
 * Running out of memory is an error, not an abort: ar_alloc never returns
 * NULL, so its callers need no checks. When malloc fails, the arena
 * records the failure (ar_failed) and keeps serving requests from a reserve
 * block set aside by ar_new, which is enough for the compiler to wind down:
 * the Diag polls ar_failed() in dg_full() and dg_errors(), reports "out of
 * memory" once, and every stage stops at its next dg_full() poll, as after
 * too many errors. Only a request that even the reserve cannot hold ends
 * the process; the compiler's budgets (sema's unroll, inline and IR
 * limits, the input size cap) keep a well-formed compilation far from
 * that. ar_try_alloc is for the one large allocation that can fail
 * cleanly (a whole input file): it returns NULL and leaves the arena as is.
 * ar_set_limit makes the arena fail as malloc would past a size (for the
 * tests of all this, and for a host that bounds a compilation's memory).
 */
#include "base.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct Block {
    struct Block *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
} Block;

struct Arena {
    Block *head;
    size_t next_size;
    size_t total;
    Block *reserve;      /* served from once malloc has failed */
    int failed;
    size_t limit;        /* ar_set_limit; 0: none */
};

/* The reserve: what the compiler may still allocate after a failure. */
#define AR_RESERVE ((size_t)4 << 20)

Arena *ar_new(void) {
    Arena *a = calloc(1, sizeof *a);
    Block *r = malloc(sizeof(Block) + AR_RESERVE);
    if (!a || !r) {
        free(a);
        free(r);
        return NULL;
    }
    r->next = NULL;
    r->size = AR_RESERVE;
    r->used = 0;
    a->reserve = r;
    a->next_size = 64 * 1024;
    return a;
}

void ar_free(Arena *a) {
    if (!a) return;
    for (Block *b = a->head, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    free(a->reserve);
    free(a);
}

int ar_failed(const Arena *a) { return a->failed; }

void ar_set_limit(Arena *a, size_t bytes) { a->limit = bytes; }

/* malloc, failing as it would past the arena's limit. */
static Block *new_block(Arena *a, size_t size) {
    if (a->limit && (a->total > a->limit || size > a->limit - a->total))
        return NULL;
    return malloc(sizeof(Block) + size);
}

/* Carves n bytes (rounded) out of the reserve; NULL when it is spent. */
static void *from_reserve(Arena *a, size_t n) {
    Block *r = a->reserve;
    if (r->size - r->used < n) return NULL;
    void *p = r->data + r->used;
    r->used += n;
    a->total += n;
    memset(p, 0, n);
    return p;
}

static void *alloc(Arena *a, size_t n, int may_fail) {
    if (n > SIZE_MAX - 16 - sizeof(Block)) n = SIZE_MAX - 16 - sizeof(Block);
    n = (n + 15) & ~(size_t)15;
    if (n == 0) n = 16;
    Block *b = a->head;
    if (a->failed && !may_fail) {
        void *p = from_reserve(a, n);
        if (p) return p;
    }
    if (!b || b->size - b->used < n) {
        size_t size = a->next_size;
        if (size < n) size = n;
        b = new_block(a, size);
        if (!b && may_fail) return NULL;
        if (!b) {
            a->failed = 1;
            void *p = from_reserve(a, n);
            if (p) return p;
            fputs("tilec: fatal: out of memory\n", stderr);
            abort();
        }
        b->size = size;
        b->used = 0;
        /* Keep the partly used block at the head when the new one is an
         * oversized one-off, so small allocations keep filling it. */
        if (a->head && size > a->next_size) {
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
            if (a->next_size < 1024 * 1024) a->next_size *= 2;
        }
    }
    void *p = b->data + b->used;
    b->used += n;
    a->total += n;
    memset(p, 0, n);
    return p;
}

void *ar_alloc(Arena *a, size_t n) { return alloc(a, n, 0); }
void *ar_try_alloc(Arena *a, size_t n) { return alloc(a, n, 1); }

size_t ar_used(const Arena *a) { return a->total; }

char *ar_strndup(Arena *a, const char *s, size_t n) {
    char *p = ar_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *ar_strdup(Arena *a, const char *s) { return ar_strndup(a, s, strlen(s)); }

char *ar_vprintf(Arena *a, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *p = ar_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *ar_printf(Arena *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *p = ar_vprintf(a, fmt, ap);
    va_end(ap);
    return p;
}

void vec_grow_(Arena *a, void **v, int *cap, int n, size_t elem) {
    int ncap = *cap ? *cap * 2 : 8;
    void *nv = ar_alloc(a, (size_t)ncap * elem);
    if (n) memcpy(nv, *v, (size_t)n * elem);
    *v = nv;
    *cap = ncap;
}

/* ------------------------------------------------------------ buffers */

/* Out of memory, a buffer stops growing: it keeps what it holds and
 * records the loss in b->failed, which the one caller that must know (a
 * file being read) checks. */
void buf_put(Buf *b, const char *s, size_t n) {
    if (b->failed) return;
    if (n > SIZE_MAX / 2 - b->n) {
        b->failed = 1;
        return;
    }
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1) cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}

void buf_putc(Buf *b, char c) { buf_put(b, &c, 1); }
void buf_puts(Buf *b, const char *s) { buf_put(b, s, strlen(s)); }

void buf_vprintf(Buf *b, const char *fmt, va_list ap) {
    char tmp[512];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap2);
    va_end(ap2);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        buf_put(b, tmp, (size_t)n);
        return;
    }
    char *p = malloc((size_t)n + 1);
    if (!p) {
        b->failed = 1;
        return;
    }
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    buf_put(b, p, (size_t)n);
    free(p);
}

void buf_printf(Buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void buf_free(Buf *b) {
    free(b->s);
    b->s = NULL;
    b->n = b->cap = 0;
    b->failed = 0;
}
