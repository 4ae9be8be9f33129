/*
 * regcap.c — register caps that keep a variant's programs per SM.
 *
 * The variants of one configuration run one program on different facts
 * (plan/guard.c). Where the most specialized one moves rows 16 bytes at a
 * time, the generic one moves them an element at a time, and ptxas, left
 * to itself, spends registers on keeping more of those loads in flight,
 * so that fewer programs fit an SM. In a pass over memory (no product, no
 * cp.async ring), whose speed follows the programs in flight, that costs
 * more than it gains: on the H200 (docs/PERF.md, session 21) softmax over
 * rows of 4097 f32 (BLOCK 8192, 8 warps) ran 43.7 us with ptxas's 79
 * registers (3 programs per SM) and 38.8 us with 48 (5, as many as its
 * aligned variant), layernorm f16 42.0 us at 80 registers and 40.0 at 64.
 *
 * So once ptxas has reported every entry, each less specialized entry of
 * a memory pass that fits fewer programs per SM than the first entry of
 * its configuration gets `.maxnreg`: the most registers at which as many
 * fit. ptxas runs again; an entry that then spills loses its cap (and
 * ptxas runs once more); should a run with caps fail, the first run's
 * result stands, uncapped. The model of an SM (lw_sm_programs) counts
 * registers, warps, programs and shared memory, as the CUDA occupancy
 * calculator does. Without ptxas (`--emit=ptx` alone, a machine without
 * the toolkit) there is no report and nothing is capped.
 *
 * Where the memory passes share a file with other kernels (a model's
 * layernorm beside its products: hundreds of entries, tens of megabytes
 * of PTX), the caps are decided on a module of the memory passes' entries
 * alone and the whole module is then assembled once, capped
 * (lw_assemble); ptxas compiles each entry on its own, so an entry's
 * report is the same in either module. Caps reach the PTX in one pass
 * over it (ptx_rewrite), whatever their number.
 */
#include "lower/lower.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

int lw_sm_programs(LwSm sm, int regs, int threads, int64_t shared) {
    if (threads <= 0) return 0;
    int warps = (threads + 31) / 32;
    int64_t n = sm.programs;
    int64_t by_warps = sm.warps / warps;
    if (by_warps < n) n = by_warps;
    int64_t per_warp = 256 * (((int64_t)(regs > 0 ? regs : 1) + 7) / 8);
    int64_t by_regs = sm.registers / (per_warp * warps);
    if (by_regs < n) n = by_regs;
    int64_t by_smem = sm.shared / (shared + 1024);
    if (by_smem < n) n = by_smem;
    return (int)n;
}

int lw_register_cap(LwSm sm, int threads, int64_t shared, int programs) {
    for (int r = 248; r >= 8; r -= 8)   /* 255 registers allocate as 256 */
        if (lw_sm_programs(sm, r, threads, shared) >= programs) return r == 248 ? 255 : r;
    return 0;
}

/* The directives of entry `name`: from its `.entry NAME(` to the `{` of
 * its body; NULL when there is no such entry. */
static const char *entry_head(const char *ptx, const char *name, const char **body) {
    size_t n = strlen(name);
    for (const char *p = strstr(ptx, ".entry "); p; p = strstr(p + 1, ".entry ")) {
        const char *q = p + strlen(".entry ");
        if (strncmp(q, name, n) != 0 || q[n] != '(') continue;
        *body = strstr(q, "\n{");
        return *body ? q : NULL;
    }
    return NULL;
}

/* The start of the line in [from, to) that begins with `dir`, or NULL. */
static const char *find_line(const char *from, const char *to, const char *dir) {
    size_t n = strlen(dir);
    for (const char *p = strchr(from, '\n'); p && p < to; p = strchr(p + 1, '\n'))
        if (strncmp(p + 1, dir, n) == 0) return p + 1;
    return NULL;
}

/* s with [from, to) replaced by text. */
static char *splice(Arena *ar, const char *s, const char *from, const char *to,
                    const char *text) {
    size_t head = (size_t)(from - s), tail = strlen(to), n = strlen(text);
    char *out = ar_alloc(ar, head + n + tail + 1);
    memcpy(out, s, head);
    memcpy(out + head, text, n);
    memcpy(out + head + n, to, tail + 1);
    return out;
}

char *lw_ptx_set_maxnreg(Arena *ar, const char *ptx, const char *name, int n) {
    const char *body;
    const char *head = entry_head(ptx, name, &body);
    if (!head) return NULL;
    const char *old = find_line(head, body, ".maxnreg ");
    char *out = old ? splice(ar, ptx, old, strchr(old, '\n') + 1, "") : (char *)ptx;
    if (n <= 0) return out == ptx ? ar_strndup(ar, ptx, strlen(ptx)) : out;
    /* after .reqntid, else right before the body */
    head = entry_head(out, name, &body);
    const char *at = find_line(head, body, ".reqntid ");
    at = at ? strchr(at, '\n') + 1 : body + 1;
    char line[32];
    snprintf(line, sizeof line, ".maxnreg %d\n", n);
    return splice(ar, out, at, at, line);
}

static const LwStats *stats_of(const LwStats *st, int n, const char *entry) {
    for (int i = 0; i < n; i++)
        if (strcmp(st[i].entry, entry) == 0) return &st[i];
    return NULL;
}

/* The cap entry e should get (0: none): e is a less specialized entry of
 * a memory pass that fits fewer programs per SM than `first`, the first
 * entry of its configuration, and a cap below ptxas's choice fits as many. */
static int cap_for(LwSm sm, const LwEntry *e, const LwEntry *first, const LwStats *st, int n) {
    if (e == first || !e->memory_pass || !first->memory_pass) return 0;
    const LwStats *se = stats_of(st, n, e->name), *sf = stats_of(st, n, first->name);
    if (!se || !sf) return 0;
    int threads = 32 * e->warps;
    int want = lw_sm_programs(sm, sf->registers, threads, first->shared_bytes);
    if (lw_sm_programs(sm, se->registers, threads, e->shared_bytes) >= want) return 0;
    int cap = lw_register_cap(sm, threads, e->shared_bytes, want);
    return cap && cap < se->registers ? cap : 0;
}

/* Drops every cap of lw's entries. */
static void clear_caps(LwOutput *lw) {
    for (int e = 0; e < lw->nentries; e++) lw->entries[e].reg_cap = lw->entries[e].reg_natural = 0;
}

/* ------------------------------------------------- PTX, entry by entry */

/* The next entry of ptx at or after p, a line start: the start of its
 * `.entry` line (NULL when there is none), its name and the end of its
 * body, past the line of the `}` that closes it (the braces of inline asm
 * blocks inside a body are balanced). */
static const char *next_entry(const char *p, const char **name, size_t *nlen,
                              const char **end) {
    for (const char *q = strstr(p, ".entry "); q; q = strstr(q + 1, ".entry ")) {
        const char *line = q;
        while (line > p && line[-1] != '\n') line--;
        size_t lead = (size_t)(q - line);
        if (!(lead == 0 || (lead == 9 && strncmp(line, ".visible ", 9) == 0) ||
              (lead == 6 && strncmp(line, ".weak ", 6) == 0)))
            continue;
        *name = q + strlen(".entry ");
        *nlen = strcspn(*name, "( \t\n");
        int depth = 0;
        for (const char *c = strchr(q, '{'); c && *c; c++) {
            if (*c == '{') depth++;
            if (*c != '}' || --depth) continue;
            const char *nl = strchr(c, '\n');
            *end = nl ? nl + 1 : c + 1;
            return line;
        }
        return NULL;
    }
    return NULL;
}

/* ptx rewritten in one pass: entries whose name `keep` lacks are left out
 * (keep NULL: none is), and each entry that `caps` names gets that
 * `.maxnreg` (its value, an intptr_t, never 0). Everything
 * outside the entries is copied as it is. */
static char *ptx_rewrite(Arena *ar, const char *ptx, const StrMap *keep, const StrMap *caps) {
    Buf out = {0};
    const char *p = ptx, *name, *end;
    size_t nlen;
    for (const char *at; (at = next_entry(p, &name, &nlen, &end)); p = end) {
        buf_put(&out, p, (size_t)(at - p));
        char *key = ar_strndup(ar, name, nlen);
        if (keep && !map_get(keep, key)) continue;
        void *cap = caps ? map_get(caps, key) : NULL;
        if (!cap) {
            buf_put(&out, at, (size_t)(end - at));
            continue;
        }
        const char *text = ar_strndup(ar, at, (size_t)(end - at));
        buf_puts(&out, lw_ptx_set_maxnreg(ar, text, key, (int)(intptr_t)cap));
    }
    buf_puts(&out, p);
    char *s = out.failed ? NULL : ar_strndup(ar, out.s ? out.s : "", out.n);
    buf_free(&out);
    return s;
}

char *lw_ptx_only_entries(Arena *ar, const char *ptx, const char *const *names, int n) {
    StrMap keep = {0};
    for (int i = 0; i < n; i++) map_put(ar, &keep, names[i], (void *)names[i]);
    return ptx_rewrite(ar, ptx, &keep, NULL);
}

/* ptx (as lw_compile made it) with the caps lw's entries carry, in one
 * pass. */
static char *ptx_with_caps(Arena *ar, const LwOutput *lw, const char *ptx) {
    StrMap caps = {0};
    for (int e = 0; e < lw->nentries; e++)
        if (lw->entries[e].reg_cap)
            map_put(ar, &caps, lw->entries[e].name, (void *)(intptr_t)lw->entries[e].reg_cap);
    return ptx_rewrite(ar, ptx, NULL, &caps);
}

/* ------------------------------------------------------------ the caps */

void lw_cap_registers(Arena *ar, LwOutput *lw, const char *arch, char **cubin,
                      size_t *cubin_len, LwStats **stats, int *nstats) {
    LwSm sm = lw_arch_sm(arch);
    int capped = 0;
    for (int e = 0, first = 0; e < lw->nentries; e++) {
        LwEntry *en = &lw->entries[e];
        if (en->config != lw->entries[first].config) first = e;
        int cap = cap_for(sm, en, &lw->entries[first], *stats, *nstats);
        if (!cap) continue;
        en->reg_natural = stats_of(*stats, *nstats, en->name)->registers;
        en->reg_cap = cap;
        capped++;
    }
    if (!capped) return;
    char *ptx0 = lw->ptx, *ptx = ptx_with_caps(ar, lw, ptx0);
    char *cubin0 = cubin ? *cubin : NULL;
    size_t len0 = cubin_len ? *cubin_len : 0;
    LwStats *stats0 = *stats;
    int nstats0 = *nstats;
    Diag *quiet = dg_new(ar, NULL, 0);
    int rc = ptx ? lw_ptxas(ar, quiet, ptx, arch, cubin, cubin_len, stats, nstats) : -1;
    int dropped = 0;
    for (int e = 0; rc == 0 && e < lw->nentries; e++) {
        LwEntry *en = &lw->entries[e];
        const LwStats *s = en->reg_cap ? stats_of(*stats, *nstats, en->name) : NULL;
        if (!s || (!s->spill_stores && !s->spill_loads)) continue;
        en->reg_cap = en->reg_natural = 0;
        dropped++;
    }
    if (rc == 0 && dropped) {
        ptx = ptx_with_caps(ar, lw, ptx0);
        rc = ptx ? lw_ptxas(ar, quiet, ptx, arch, cubin, cubin_len, stats, nstats) : -1;
    }
    dg_free(quiet);
    if (rc != 0) {   /* keep what the first run gave */
        if (cubin) *cubin = cubin0;
        if (cubin_len) *cubin_len = len0;
        *stats = stats0;
        *nstats = nstats0;
        clear_caps(lw);
        return;
    }
    lw->ptx = ptx;
    lw->ptx_len = strlen(ptx);
}

/* Entries the caps may concern: each memory pass that is not the first
 * entry of its configuration, and that first entry, where it is a memory
 * pass too (cap_for's precondition). Returns their number. */
static int cap_candidates(Arena *ar, const LwOutput *lw, const char ***names) {
    Vec(const char *) v = {0};
    for (int e = 0, first = 0; e < lw->nentries; e++) {
        const LwEntry *en = &lw->entries[e], *f;
        if (en->config != lw->entries[first].config) first = e;
        f = &lw->entries[first];
        if (e == first || !en->memory_pass || !f->memory_pass) continue;
        if (!v.n || v.v[v.n - 1] != f->name) vec_push(ar, &v, f->name);
        vec_push(ar, &v, en->name);
    }
    *names = v.v;
    return v.n;
}

int lw_assemble(Arena *ar, Diag *dg, LwOutput *lw, const char *arch, int caps,
                char **cubin, size_t *cubin_len, LwStats **stats, int *nstats) {
    const char **names = NULL;
    int n = caps ? cap_candidates(ar, lw, &names) : 0;
    if (n == 0 || n == lw->nentries) {   /* one module: assembled, then capped */
        if (lw_ptxas(ar, dg, lw->ptx, arch, cubin, cubin_len, stats, nstats) != 0) return -1;
        if (n) lw_cap_registers(ar, lw, arch, cubin, cubin_len, stats, nstats);
        return 0;
    }
    LwOutput sub = *lw;
    sub.ptx = lw_ptx_only_entries(ar, lw->ptx, names, n);
    LwStats *st = NULL;
    int nst = 0;
    Diag *quiet = dg_new(ar, NULL, 0);
    if (sub.ptx && lw_ptxas(ar, quiet, sub.ptx, arch, NULL, NULL, &st, &nst) == 0)
        lw_cap_registers(ar, &sub, arch, NULL, NULL, &st, &nst);   /* caps: lw's entries */
    char *capped = NULL;
    for (int e = 0; e < lw->nentries && !capped; e++)
        if (lw->entries[e].reg_cap) capped = ptx_with_caps(ar, lw, lw->ptx);
    int rc = capped ? lw_ptxas(ar, quiet, capped, arch, cubin, cubin_len, stats, nstats) : -1;
    dg_free(quiet);
    if (rc == 0) {
        lw->ptx = capped;
        lw->ptx_len = strlen(capped);
        return 0;
    }
    clear_caps(lw);   /* none, or the capped module failed: as ptxas makes it */
    return lw_ptxas(ar, dg, lw->ptx, arch, cubin, cubin_len, stats, nstats);
}
