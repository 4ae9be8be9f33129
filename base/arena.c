/*
 * arena.c — bump allocation in chained blocks, and the small buffers built
 * on it (the file helpers are in file.c).
 *
 * Blocks grow geometrically (64 KiB, doubling up to 1 MiB); a request larger
 * than a block gets a block of its own. Every allocation is zeroed and
 * 16-byte aligned, so callers never memset and can store any scalar type.
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
};

Arena *ar_new(void) {
    Arena *a = calloc(1, sizeof *a);
    if (!a) abort();
    a->next_size = 64 * 1024;
    return a;
}

void ar_free(Arena *a) {
    if (!a) return;
    for (Block *b = a->head, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    free(a);
}

void *ar_alloc(Arena *a, size_t n) {
    n = (n + 15) & ~(size_t)15;
    if (n == 0) n = 16;
    Block *b = a->head;
    if (!b || b->size - b->used < n) {
        size_t size = a->next_size;
        if (size < n) size = n;
        b = malloc(sizeof(Block) + size);
        if (!b) {
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

void buf_put(Buf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n + 1) cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) abort();
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
    if (!p) abort();
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
}
