/*
 * choose.c — which configuration of a kernel runs: selection strings,
 * @require, and the messages when nothing fits (API and rules: choose.h).
 *
 * This is the only copy of these rules. libtile calls it on a loaded
 * bundle; the interpreter on the descriptor tlb_from_ir builds from its
 * IrModule, so "the first configuration, in @tune order, that the
 * selection admits and whose @require holds" cannot drift between the
 * two. The hot call, tlb_config_holds, is a loop of tlb_eval and formats
 * nothing unless an expression divides by zero; every message is built
 * only on failure, into the caller's fixed buffer (text.h cuts what does
 * not fit and ends it in "...").
 *
 * A failed @require is explained per configuration by the first condition
 * that gave 0 — narrowed to the failing conjunct of a top-level `&&`
 * chain — printed from the bundle's own postfix code (expr_text.c), so
 * bundles need no source text and old bundles explain themselves too.
 */
#include "bundle/choose.h"
#include "bundle/text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tlb_config_name(const TlbKernel *k, uint32_t c, char *buf, size_t n) {
    const TlbConfig *cfg = &k->configs[c];
    TlbText t = tlb_text(buf, n);
    for (uint32_t i = 0; i < k->ncparams; i++) {
        const TlbCparam *cp = &k->cparams[i];
        int64_t v = cfg->cvalues[i];
        if (cp->kind == TLB_CPARAM_TYPE)
            tlb_text_printf(&t, "%s=%s,", cp->name, tlb_type_name((TlbType)v));
        else if (cp->kind == TLB_CPARAM_BOOL)
            tlb_text_printf(&t, "%s=%s,", cp->name, v ? "true" : "false");
        else
            tlb_text_printf(&t, "%s=%" PRId64 ",", cp->name, v);
    }
    tlb_text_printf(&t, "warps=%u,stages=%u", cfg->warps, cfg->stages);
}

int tlb_config_agrees(const TlbKernel *k, uint32_t c, const char *name, const char *value) {
    const TlbConfig *cfg = &k->configs[c];
    char *end;
    errno = 0;
    long long n = strtoll(value, &end, 0);
    int is_int = *value && !*end && !errno;
    if (!strcmp(name, "warps")) return is_int && n == cfg->warps;
    if (!strcmp(name, "stages")) return is_int && n == cfg->stages;
    for (uint32_t i = 0; i < k->ncparams; i++) {
        const TlbCparam *cp = &k->cparams[i];
        if (strcmp(cp->name, name)) continue;
        int64_t v = cfg->cvalues[i];
        if (cp->kind == TLB_CPARAM_TYPE) return !strcmp(tlb_type_name((TlbType)v), value);
        if (cp->kind == TLB_CPARAM_BOOL)
            return !strcmp(value, v ? "true" : "false") || (is_int && n == v);
        return is_int && n == v;
    }
    return -1;
}

/* s without its leading and trailing spaces (cut in place). */
static char *trim(char *s) {
    while (*s == ' ') s++;
    size_t n = strlen(s);
    while (n && s[n - 1] == ' ') s[--n] = 0;
    return s;
}

/* The message of a NAME no configuration sets. */
static TlbChoice unknown_name(const TlbKernel *k, const char *name, char *err,
                              size_t errlen) {
    TlbText t = tlb_text(err, errlen);
    tlb_text_printf(&t, "kernel '%s': no compile-time parameter '%s' (configurations "
                    "set ", k->name, name);
    for (uint32_t i = 0; i < k->ncparams; i++) tlb_text_printf(&t, "%s, ", k->cparams[i].name);
    tlb_text_printf(&t, "warps, stages)");
    return TLB_CHOICE_UNKNOWN_NAME;
}

/* in[c] &= configuration c agrees with every item of `items` (a copy of
 * the selection, cut up here). */
static TlbChoice apply_items(const TlbKernel *k, const char *spec, char *items,
                             uint8_t *in, char *err, size_t errlen) {
    char *save = NULL;
    for (char *item = strtok_r(items, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (eq) *eq = 0;
        char *name = trim(item);
        if (!eq || !*name) {
            snprintf(err, errlen, "kernel '%s': invalid configuration '%s' (expected "
                     "NAME=VALUE,...)", k->name, spec);
            return TLB_CHOICE_SYNTAX;
        }
        const char *value = trim(eq + 1);
        for (uint32_t c = 0; c < k->nconfigs; c++) {
            int a = tlb_config_agrees(k, c, name, value);
            if (a < 0) return unknown_name(k, name, err, errlen);
            in[c] &= a > 0;
        }
    }
    return TLB_CHOICE_OK;
}

TlbChoice tlb_select(const TlbKernel *k, const char *spec, uint8_t *in, char *err,
                     size_t errlen) {
    for (uint32_t c = 0; c < k->nconfigs; c++) in[c] = 1;
    char *items = strdup(spec);
    if (!items) {
        snprintf(err, errlen, "kernel '%s': out of memory reading the selection '%s'",
                 k->name, spec);
        return TLB_CHOICE_NO_MEMORY;
    }
    TlbChoice r = apply_items(k, spec, items, in, err, errlen);
    free(items);
    if (r) return r;
    for (uint32_t c = 0; c < k->nconfigs; c++)
        if (in[c]) return TLB_CHOICE_OK;
    TlbText t = tlb_text(err, errlen);
    tlb_text_printf(&t, "kernel '%s' has no configuration '%s'; available: ", k->name, spec);
    for (uint32_t c = 0; c < k->nconfigs; c++) {
        char name[256];
        tlb_config_name(k, c, name, sizeof name);
        tlb_text_printf(&t, "%s%s", c ? "; " : "", name);
    }
    return TLB_CHOICE_NONE_SELECTED;
}

/* "rows=4, cols=5000": the integer (and bool) arguments. */
static void describe_args(TlbText *t, const TlbKernel *k, const int64_t *args) {
    int any = 0;
    for (uint32_t i = 0; i < k->nparams; i++) {
        TlbType ty = (TlbType)k->params[i].type;
        if (!tlb_type_isint(ty) && ty != TLB_BOOL) continue;
        tlb_text_printf(t, "%s%s=%" PRId64, any++ ? ", " : "", k->params[i].name, args[i]);
    }
    if (!any) tlb_text_printf(t, "no integer arguments");
}

/* The part of e to show for its failure, after `prefix`. */
static void describe_failure(TlbText *t, const char *prefix, const TlbKernel *k,
                             const TlbExpr *e, const int64_t *args, int divzero) {
    tlb_text_printf(t, "%s", prefix);
    if (e->n) tlb_expr_print_range(t, k, e, tlb_expr_culprit(e, args, divzero));
}

static void div_zero_message(const TlbKernel *k, uint32_t c, const TlbExpr *e,
                             const int64_t *args, char *err, size_t errlen) {
    char name[256];
    tlb_config_name(k, c, name, sizeof name);
    TlbText t = tlb_text(err, errlen);
    tlb_text_printf(&t, "kernel '%s': division by zero in @require of configuration %u "
                    "(%s)", k->name, c, name);
    describe_failure(&t, ", in ", k, e, args, 1);
    tlb_text_printf(&t, ", for these arguments (");
    describe_args(&t, k, args);
    tlb_text_printf(&t, ")");
}

int tlb_config_holds(const TlbKernel *k, uint32_t c, const int64_t *args, char *err,
                     size_t errlen) {
    const TlbConfig *cfg = &k->configs[c];
    for (uint32_t r = 0; r < cfg->nrequire; r++) {
        int64_t v;
        if (tlb_eval(&cfg->require[r], args, &v)) {
            if (err) div_zero_message(k, c, &cfg->require[r], args, err, errlen);
            return -1;
        }
        if (!v) return 0;
    }
    return 1;
}

/* The first condition of configuration c (whose @require does not hold)
 * that gave 0, as text. */
static void failed_condition(const TlbKernel *k, uint32_t c, const int64_t *args, char *buf,
                             size_t n) {
    const TlbConfig *cfg = &k->configs[c];
    TlbText t = tlb_text(buf, n);
    for (uint32_t r = 0; r < cfg->nrequire; r++) {
        int64_t v;
        if (tlb_eval(&cfg->require[r], args, &v) == 0 && v == 0) {
            describe_failure(&t, "", k, &cfg->require[r], args, 0);
            return;
        }
    }
}

/* Consecutive configurations that failed the same condition. */
typedef struct Group {
    uint32_t first, more;
    char cond[256];
} Group;

/* "BLOCK=256,warps=4,stages=3 and 2 more need 256 >= cols". */
static void show_group(TlbText *t, const TlbKernel *k, const Group *g, uint32_t index) {
    char name[256];
    tlb_config_name(k, g->first, name, sizeof name);
    tlb_text_printf(t, "%s%s", index ? "; " : ": ", name);
    if (g->more) tlb_text_printf(t, " and %u more need %s", g->more, g->cond);
    else tlb_text_printf(t, " needs %s", g->cond);
}

/* The failed conditions of the selected configurations, up to
 * TLB_CHOOSE_SHOWN different ones; returns how many configurations that
 * covered. */
static uint32_t show_failures(TlbText *t, const TlbKernel *k, const uint8_t *in,
                              const int64_t *args) {
    Group g = {0};
    uint32_t groups = 0, shown = 0;
    for (uint32_t c = 0; c < k->nconfigs; c++) {
        if (in && !in[c]) continue;
        char cond[sizeof g.cond];
        failed_condition(k, c, args, cond, sizeof cond);
        if (groups && !strcmp(cond, g.cond)) {
            g.more++;
            continue;
        }
        if (groups) show_group(t, k, &g, groups - 1), shown += 1 + g.more;
        if (groups == TLB_CHOOSE_SHOWN) return shown;
        g.first = c;
        g.more = 0;
        memcpy(g.cond, cond, sizeof cond);
        groups++;
    }
    if (groups) show_group(t, k, &g, groups - 1), shown += 1 + g.more;
    return shown;
}

static void none_holds_message(const TlbKernel *k, const uint8_t *in, const char *spec,
                               const int64_t *args, uint32_t nselected, char *err,
                               size_t errlen) {
    TlbText t = tlb_text(err, errlen);
    if (spec)
        tlb_text_printf(&t, "kernel '%s': no configuration matching '%s' has its @require "
                        "hold for these arguments (", k->name, spec);
    else
        tlb_text_printf(&t, "kernel '%s': no configuration's @require holds for these "
                        "arguments (", k->name);
    describe_args(&t, k, args);
    if (in)
        tlb_text_printf(&t, "; %u of %u configurations selected)", nselected, k->nconfigs);
    else
        tlb_text_printf(&t, "; %u configuration%s)", k->nconfigs, k->nconfigs == 1 ? "" : "s");
    uint32_t shown = show_failures(&t, k, in, args);
    if (nselected > shown) tlb_text_printf(&t, "; and %u more", nselected - shown);
}

TlbChoice tlb_choose(const TlbKernel *k, const uint8_t *in, const char *spec,
                     const int64_t *args, uint32_t *config, char *err, size_t errlen) {
    uint32_t nselected = 0;
    for (uint32_t c = 0; c < k->nconfigs; c++) {
        if (in && !in[c]) continue;
        nselected++;
        int h = tlb_config_holds(k, c, args, err, errlen);
        if (h < 0) return TLB_CHOICE_DIV_ZERO;
        if (h) {
            *config = c;
            return TLB_CHOICE_OK;
        }
    }
    none_holds_message(k, in, spec, args, nselected, err, errlen);
    return TLB_CHOICE_NONE_HOLDS;
}
