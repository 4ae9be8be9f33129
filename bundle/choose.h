/*
 * choose.h — configuration choice over a bundle's kernel descriptor: the
 * one implementation libtile (runtime/select.c, plan.c, tune.c) and the
 * reference interpreter (interp/api.c, over tlb_from_ir's descriptor of
 * its IrModule) both call, so that the same selection and the same
 * arguments pick the same configuration in both.
 *
 * Three steps, each usable alone:
 *   agree   does configuration c set NAME to VALUE (warps, stages, or a
 *           compile-time parameter of int, bool or type kind)?
 *   select  a "NAME=VALUE,..." string to a per-configuration mask;
 *   choose  the first configuration of the mask, in the bundle's order
 *           (the source's @tune order), whose @require holds for the
 *           integer arguments.
 * Failures come back as a TlbChoice and a one-line message formatted into
 * the caller's buffer (only on failure: the launch path formats nothing).
 * A @require failure names the integer arguments ("rows=4, cols=5000")
 * and, configuration by configuration, the first condition that failed,
 * as source-like text with the compile-time values folded in ("256 >=
 * cols"); consecutive configurations that failed the same condition are
 * one entry, and after TLB_CHOOSE_SHOWN entries the rest are counted.
 *
 * Everything is pure and reentrant: no allocation except select's copy of
 * its string, no state.
 */
#ifndef TILE_BUNDLE_CHOOSE_H
#define TILE_BUNDLE_CHOOSE_H

#include "bundle/bundle.h"

typedef enum TlbChoice {
    TLB_CHOICE_OK = 0,
    TLB_CHOICE_SYNTAX,          /* the selection is not NAME=VALUE,... */
    TLB_CHOICE_UNKNOWN_NAME,    /* a NAME the configurations do not set */
    TLB_CHOICE_NONE_SELECTED,   /* no configuration agrees with the selection */
    TLB_CHOICE_NO_MEMORY,
    TLB_CHOICE_NONE_HOLDS,      /* no selected configuration's @require holds */
    TLB_CHOICE_DIV_ZERO         /* a @require divides by zero */
} TlbChoice;

/* The message buffer both callers pass, so that a message too long for it
 * is cut at the same place in libtile and the interpreter. */
#define TLB_CHOOSE_ERRLEN 1024

/* Different failed @require conditions a message spells out (each with
 * the run of configurations that failed it); further ones are counted. */
#define TLB_CHOOSE_SHOWN 4

/* "BLOCK=1024,warps=4,stages=3": configuration c's name, the form
 * selections take; truncated to n bytes. */
void tlb_config_name(const TlbKernel *k, uint32_t c, char *buf, size_t n);

/* Does configuration c set `name` to `value`? 1 yes, 0 no, -1 no
 * configuration of k sets `name`. Integers in C syntax (0x.. too); bool
 * parameters take true/false or an integer; type parameters a type name. */
int tlb_config_agrees(const TlbKernel *k, uint32_t c, const char *name, const char *value);

/* in[c] = 1 when configuration c agrees with every NAME=VALUE of `spec`
 * (spaces around names and values are ignored), else 0. TLB_CHOICE_OK, or
 * an error (SYNTAX, UNKNOWN_NAME, NONE_SELECTED, NO_MEMORY) and its
 * message in err. */
TlbChoice tlb_select(const TlbKernel *k, const char *spec, uint8_t *in, char *err,
                     size_t errlen);

/* Do all of configuration c's @require hold for `args` (runtime
 * parameter i's integer value at i)? 1, 0, or -1 when one divides by
 * zero; then err (when not NULL) gets the message. */
int tlb_config_holds(const TlbKernel *k, uint32_t c, const int64_t *args, char *err,
                     size_t errlen);

/* *config = the first configuration with in[c] (in NULL: every one) whose
 * @require holds. TLB_CHOICE_OK, or NONE_HOLDS / DIV_ZERO with the message
 * in err; `spec` (NULL: none) is the selection's text for it. */
TlbChoice tlb_choose(const TlbKernel *k, const uint8_t *in, const char *spec,
                     const int64_t *args, uint32_t *config, char *err, size_t errlen);

/* Expression e of kernel k as source-like text ("cols % 128 == 0"),
 * truncated to n bytes; returns buf. */
const char *tlb_expr_text(const TlbKernel *k, const TlbExpr *e, char *buf, size_t n);
/* Tensor map m of a variant of kernel k as text, for printers of
 * variants: "tmap a: f16 [K, M] stride [lda] box [64, 128] swizzle 128"
 * (dimensions innermost first, strides in elements; no stride list at
 * rank 1), truncated to n bytes; returns buf. */
const char *tlb_tmap_text(const TlbKernel *k, const TlbTmap *m, char *buf, size_t n);

#endif
