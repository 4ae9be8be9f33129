/*
 * text.h — bundle/'s private text helpers for choose.c's messages: a
 * bounded text builder and the expression printer of expr_text.c. Text
 * goes into the caller's fixed buffer; what does not fit is cut and the
 * text ends in "..." so that a reader sees it was cut. Nothing is
 * allocated.
 */
#ifndef TILE_BUNDLE_TEXT_H
#define TILE_BUNDLE_TEXT_H

#include "bundle/bundle.h"

typedef struct TlbText {
    char *s;
    size_t n;            /* size of s, 0: write nothing */
    size_t used;         /* strlen(s) */
    int full;            /* something was cut */
} TlbText;

/* An empty text over buf[n]. */
TlbText tlb_text(char *buf, size_t n);
void tlb_text_printf(TlbText *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends the subexpression of e that ends at instruction `last`. */
void tlb_expr_print_range(TlbText *t, const TlbKernel *k, const TlbExpr *e,
                          uint32_t last);
/* For a non-empty e that failed for args (divided by zero when `divzero`,
 * else gave 0): the last instruction of the subexpression to blame, the
 * failing conjunct of a top-level `a && b && ...` or e itself. */
uint32_t tlb_expr_culprit(const TlbExpr *e, const int64_t *args, int divzero);

#endif
