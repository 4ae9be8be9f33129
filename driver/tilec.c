/*
 * tilec.c — the command-line compiler: options in, one .tile file through
 * the stages, the requested form out.
 *
 * Options are described by one table (OPTIONS below): each entry names the
 * option, its argument, its help line and the function that stores it, so
 * adding an option is adding a row, and --help is printed from the same
 * table. Option arguments may be joined or separate (`-o out`, `-oout`,
 * `--emit=ast`, `--emit ast`).
 *
 * Exit status: 0 success, 1 errors in the input (or unreadable input /
 * unwritable output), 2 usage errors. Output is produced in memory and
 * written only when the run succeeded, atomically (write_file_atomic), so
 * a failed run never leaves a partial file behind.
 *
 * Without --emit, tilec checks the file: parsing and semantic analysis
 * (every configuration of every kernel). A file without any item is an
 * error, "no items in file", except for --emit=tokens, which only scans.
 */
#include "config.h"

#include "base/base.h"
#include "bundle/bundle.h"
#include "bundle/from_ir.h"
#include "driver/compile.h"
#include "driver/emit_c.h"
#include "parser/parser.h"
#include "lower/lower.h"
#include "plan/layout.h"
#include "sema/sema.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef enum {
    EMIT_CHECK, EMIT_TOKENS, EMIT_AST, EMIT_IR, EMIT_LLVM, EMIT_PTX, EMIT_CUBIN,
    EMIT_BUNDLE, EMIT_C, EMIT_DEPS
} Emit;

typedef struct Opts {
    Arena *ar;
    const char *input;
    const char *output;          /* NULL: stdout */
    Emit emit;
    Vec(SmDefine) defines;       /* -D NAME=VALUE, in order */
    Vec(const char *) include_dirs;
    const char *arch;
    int debug;                   /* -g */
    int opt_level;               /* -O0..-O3 */
    int color;                   /* -1: decide (terminal and no NO_COLOR) */
    int error_limit;
    int variant;                 /* layouts to show: 0 generic, 1 aligned,
                                    -1 none */
    int stats;                   /* --stats: ptxas resource report */
    int fp_contract_off;         /* --fp-contract=off */
    int no_tma;                  /* --no-tma */
    int early_products;          /* --early-products */
    int slot_sync;               /* --slot-sync: TC_SLOT_* */
    int persistent;              /* --persistent */
    int pingpong;                /* --pingpong */
    int warpspec;                /* --warp-specialize */
    int split_loads;             /* --split-loads */
    int tma_store;               /* --tma-store */
    int help, version;
} Opts;

/* Reports a usage error; the caller returns 2. */
__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt,
                                                             ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("tilec: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\ntilec: note: run 'tilec --help' for usage\n", stderr);
    va_end(ap);
    return 2;
}

static int is_ident(const char *s, size_t n) {
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return 0;
    return 1;
}

/* ------------------------------------------------- one function per option */

static int set_output(Opts *o, const char *v) {
    o->output = v;
    return 0;
}

static int set_emit(Opts *o, const char *v) {
    if (strcmp(v, "tokens") == 0) o->emit = EMIT_TOKENS;
    else if (strcmp(v, "ast") == 0) o->emit = EMIT_AST;
    else if (strcmp(v, "ir") == 0) o->emit = EMIT_IR;
    else if (strcmp(v, "llvm") == 0) o->emit = EMIT_LLVM;
    else if (strcmp(v, "ptx") == 0) o->emit = EMIT_PTX;
    else if (strcmp(v, "cubin") == 0) o->emit = EMIT_CUBIN;
    else if (strcmp(v, "bundle") == 0) o->emit = EMIT_BUNDLE;
    else if (strcmp(v, "c") == 0) o->emit = EMIT_C;
    else if (strcmp(v, "deps") == 0) o->emit = EMIT_DEPS;
    else
        return usage_error("unknown --emit kind '%s' (expected tokens, ast, "
                           "ir, llvm, ptx, cubin, bundle, c or deps)", v);
    return 0;
}

static int set_define(Opts *o, const char *v) {
    const char *eq = strchr(v, '=');
    if (!eq || !is_ident(v, (size_t)(eq - v)))
        return usage_error("invalid -D argument '%s' (expected NAME=VALUE)",
                           v);
    SmDefine d = {ar_strndup(o->ar, v, (size_t)(eq - v)), eq + 1};
    vec_push(o->ar, &o->defines, d);
    return 0;
}

static int set_include(Opts *o, const char *v) {
    vec_push(o->ar, &o->include_dirs, v);
    return 0;
}

/* The GPU architectures tilec generates code for (a subset of what the
 * linked LLVM knows, lw_arch_name()). */
static const char *const archs[] = {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"};
#define NARCHS (sizeof archs / sizeof *archs)

static int set_arch(Opts *o, const char *v) {
    for (size_t i = 0; i < NARCHS; i++)
        if (strcmp(v, archs[i]) == 0) {
            o->arch = archs[i];
            return 0;
        }
    return usage_error("unsupported --arch '%s' (expected sm_80, sm_86, "
                       "sm_89, sm_90 or sm_90a)", v);
}

static int set_debug(Opts *o, const char *v) {
    (void)v;
    o->debug = 1;
    return 0;
}

static int set_opt_level(Opts *o, const char *v) {
    if (strlen(v) != 1 || v[0] < '0' || v[0] > '3')
        return usage_error("invalid optimisation level '-O%s' (expected -O0 "
                           "to -O3)", v);
    o->opt_level = v[0] - '0';
    return 0;
}

static int set_color(Opts *o, const char *v) {
    (void)v;
    o->color = 1;
    return 0;
}

static int set_no_color(Opts *o, const char *v) {
    (void)v;
    o->color = 0;
    return 0;
}

static int set_error_limit(Opts *o, const char *v) {
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < 0 || n > 1000000 || errno)
        return usage_error("invalid --error-limit '%s' (expected a number; 0 "
                           "means no limit)", v);
    o->error_limit = (int)n;
    return 0;
}

static int set_variant(Opts *o, const char *v) {
    if (strcmp(v, "generic") == 0) o->variant = 0;
    else if (strcmp(v, "aligned") == 0) o->variant = 1;
    else return usage_error("unknown --variant '%s' (expected generic or "
                            "aligned)", v);
    return 0;
}

static int set_stats(Opts *o, const char *v) {
    (void)v;
    o->stats = 1;
    return 0;
}

static int set_fp_contract(Opts *o, const char *v) {
    if (strcmp(v, "fast") == 0) o->fp_contract_off = 0;
    else if (strcmp(v, "off") == 0) o->fp_contract_off = 1;
    else return usage_error("unknown --fp-contract '%s' (expected fast or "
                            "off)", v);
    return 0;
}

static int set_tma(Opts *o, const char *v) {
    (void)v;
    o->no_tma = 0;
    return 0;
}

static int set_no_tma(Opts *o, const char *v) {
    (void)v;
    o->no_tma = 1;
    return 0;
}

/* Withdrawn in session 34 (docs/PERF.md): its rings relied on TMA
 * swizzling one-dimensional copies, which the driver refuses. */
static int set_row_tma(Opts *o, const char *v) {
    (void)o;
    (void)v;
    return usage_error("--row-tma is withdrawn: the driver refuses the swizzled "
                       "one-dimensional tensor maps it relies on (docs/PERF.md, session 34)");
}

static int set_early_products(Opts *o, const char *v) {
    (void)v;
    o->early_products = 1;
    return 0;
}

static int set_slot_sync(Opts *o, const char *v) {
    if (strcmp(v, "mbarrier") == 0) o->slot_sync = TC_SLOT_MBARRIER;
    else if (strcmp(v, "last") == 0) o->slot_sync = TC_SLOT_LAST;
    else if (strcmp(v, "cta") == 0) o->slot_sync = TC_SLOT_CTA;
    else return usage_error("unknown --slot-sync '%s' (expected cta, mbarrier or last)", v);
    return 0;
}

static int set_split_loads(Opts *o, const char *v) {
    (void)v;
    o->split_loads = 1;
    return 0;
}

static int set_pingpong(Opts *o, const char *v) {
    (void)v;
    o->pingpong = 1;
    return 0;
}

static int set_warpspec(Opts *o, const char *v) {
    (void)v;
    o->warpspec = 1;
    return 0;
}

static int set_tma_store(Opts *o, const char *v) {
    (void)v;
    o->tma_store = 1;
    return 0;
}

static int set_persistent(Opts *o, const char *v) {
    (void)v;
    o->persistent = 1;
    return 0;
}

static int set_help(Opts *o, const char *v) {
    (void)v;
    o->help = 1;
    return 0;
}

static int set_version(Opts *o, const char *v) {
    (void)v;
    o->version = 1;
    return 0;
}

/* -------------------------------------------------------- the option table */

typedef struct OptSpec {
    const char *name;            /* "-o", "--emit" */
    const char *arg;             /* argument name for --help; NULL: a flag */
    int (*set)(Opts *, const char *);
    const char *help;
} OptSpec;

static const OptSpec OPTIONS[] = {
    {"-o", "PATH", set_output, "write the output to PATH ('-': stdout, the "
     "default)"},
    {"--emit", "KIND", set_emit, "output form: tokens, ast, ir, llvm "
     "(optimized LLVM IR), ptx (one module, an .entry per configuration and "
     "variant), cubin (needs ptxas) or bundle (a .tlb for libtile; the "
     "default when -o names a .tlb file) or c (-o NAME writes NAME.c and "
     "NAME.h: the bundle embedded and a typed launch function per kernel, "
     "over libtile) or deps (the source files read, one per line: the input, "
     "then every import); without it, only check the file"},
    {"-D", "NAME=VALUE", set_define, "give compile-time parameter NAME (or "
     "warps, stages) a value (repeatable)"},
    {"-I", "DIR", set_include, "search DIR for imports (repeatable, in "
     "order)"},
    {"--arch", "SM", set_arch, "target GPU: sm_80, sm_86, sm_89, sm_90 "
     "(default) or sm_90a"},
    {"-g", NULL, set_debug, "keep debug checks (device_assert) and line info"},
    {"-O", "LEVEL", set_opt_level, "optimisation level 0 to 3 (written -O0 "
     ".. -O3; default -O3)"},
    {"--color", NULL, set_color, "colour diagnostics"},
    {"--no-color", NULL, set_no_color, "plain diagnostics (the default when "
     "stderr is not a terminal or NO_COLOR is set)"},
    {"--error-limit", "N", set_error_limit, "stop after N errors (default "
     "20; 0: no limit)"},
    {"--variant", "V", set_variant, "assign layouts for specialization "
     "variant V (generic, or aligned: 16-byte pointers, integers divisible "
     "by 16); --emit=ir then prints every tile's layout"},
    {"--fp-contract", "MODE", set_fp_contract, "fast (the default): fuse a "
     "float multiplication into the addition it feeds (one rounding: "
     "fma.rn, as Triton and nvcc do); off: round every operation"},
    {"--tma", NULL, set_tma, "on sm_90a, fill the shared-memory rings of "
     "warpgroup MMA loops with TMA copies where a load is a box of a 2-D or "
     "3-D tensor (the default)"},
    {"--no-tma", NULL, set_no_tma, "keep those rings on cp.async"},
    {"--row-tma", NULL, set_row_tma, "withdrawn (an error): the swizzled "
     "one-dimensional tensor maps it relied on are refused by the driver "
     "(docs/PERF.md, session 34)"},
    {"--early-products", NULL, set_early_products, "on sm_90a, issue the "
     "first warpgroup MMA product of a TMA loop one iteration ahead where "
     "it reads only loop invariants and rings and another product follows "
     "(attention's Q K^T under the softmax; 3 stages or more; "
     "experimental: slower on an H100, docs/PERF.md)"},
    {"--slot-sync", "MODE", set_slot_sync, "how a TMA loop on sm_90a frees a "
     "slot for its next copies: last (the default): each warp counts itself "
     "done with the slot and the last one refills it, no thread waiting; "
     "cta: a CTA barrier every iteration (the default until session 45); "
     "mbarrier: each warp arrives on the slot's mbarrier once done with it, "
     "and the thread that copies waits for all (experimental: slower on an "
     "H100 but for D = 128 attention, docs/PERF.md)"},
    {"--split-loads", NULL, set_split_loads, "realign a row whose stride is "
     "unknown beside loads of other offsets too (a layernorm's weights "
     "beside its rows): each such load read in a rotation of its own, then "
     "moved to the row's through shared memory (experimental: not yet "
     "timed on a GPU, docs/internals/layout.md)"},
    {"--pingpong", NULL, set_pingpong, "on sm_90a, the warpgroups of a loop "
     "of two or more warpgroup MMA products take turns issuing each, so that "
     "one's work between the products (attention's softmax) runs under "
     "another's product (experimental)"},
    {"--warp-specialize", NULL, set_warpspec, "on sm_90a, a producer "
     "warpgroup beside the kernel's warps issues a TMA loop's copies, which "
     "the kernel's warps only wait for (experimental; docs/cli.md says which "
     "kernels)"},
    {"--tma-store", NULL, set_tma_store, "on sm_90a, a store of a 2-D tile "
     "that is a box of a tensor is written into shared memory by the threads "
     "and copied out by TMA, which the threads do not wait for (experimental)"},
    {"--persistent", NULL, set_persistent, "programs walk the tiles of the "
     "grid, as many launched as fit at once, where a kernel computes a tile "
     "per program in one loop of products (experimental: slower on an "
     "H100, docs/PERF.md)"},
    {"--stats", NULL, set_stats, "print registers, spills and shared memory "
     "per entry (ptxas) on stderr; warn on spills"},
    {"--help", NULL, set_help, "print this help and exit"},
    {"--version", NULL, set_version, "print the version and exit"},
};
#define NOPTIONS (sizeof OPTIONS / sizeof *OPTIONS)

static void print_help(FILE *out) {
    fputs("usage: tilec [options] FILE.tile\n\n"
          "Compiles a Tile source file ('-' reads standard input).\n\n"
          "options:\n", out);
    for (size_t i = 0; i < NOPTIONS; i++) {
        const OptSpec *s = &OPTIONS[i];
        /* `--emit=KIND`, `-OLEVEL` (joined only), `-o PATH`, `-g`. */
        const char *sep = !s->arg ? "" : s->name[1] == '-' ? "="
                          : strcmp(s->name, "-O") == 0 ? "" : " ";
        char lhs[64];
        snprintf(lhs, sizeof lhs, "%s%s%s", s->name, sep,
                 s->arg ? s->arg : "");
        fprintf(out, "  %-18s %s\n", lhs, s->help);
    }
    fputs("\nexit status: 0 success, 1 errors in the input, 2 usage errors\n",
          out);
}

/* Finds the table entry for argv[*i] and applies it, taking the argument
 * joined (`-oX`, `--emit=X`) or from the next word. Returns 0 or 2. */
static int parse_option(Opts *o, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    for (size_t k = 0; k < NOPTIONS; k++) {
        const OptSpec *s = &OPTIONS[k];
        size_t n = strlen(s->name);
        if (strncmp(a, s->name, n) != 0) continue;
        const char *rest = a + n;
        if (!s->arg) {
            if (*rest) continue;
            return s->set(o, NULL);
        }
        int is_long = s->name[1] == '-';
        if (is_long && *rest == '=') return s->set(o, rest + 1);
        if (is_long && *rest) continue;
        if (!is_long && *rest) return s->set(o, rest);
        if (strcmp(s->name, "-O") == 0)
            return usage_error("'-O' needs a level (-O0 to -O3)");
        if (*i + 1 >= argc)
            return usage_error("option '%s' needs an argument (%s)", s->name,
                               s->arg);
        return s->set(o, argv[++*i]);
    }
    return usage_error("unknown option '%s'", a);
}

static int parse_args(Opts *o, int argc, char **argv) {
    int only_files = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!only_files && strcmp(a, "--") == 0) {
            only_files = 1;
        } else if (!only_files && a[0] == '-' && a[1]) {
            int rc = parse_option(o, argc, argv, &i);
            if (rc) return rc;
        } else if (o->input) {
            return usage_error("more than one input file ('%s' and '%s')",
                               o->input, a);
        } else {
            o->input = a;
        }
    }
    if (!o->input && !o->help && !o->version)
        return usage_error("no input file");
    return 0;
}

/* ---------------------------------------------------------------- stages */

/* How --stats names TMA map t of kernel k: its parameter and boxes. */
static const char *tma_map_text(Arena *ar, const IrKernel *k, const LyTma *t) {
    return ar_printf(ar, "'%s' (%sboxes of %d x %d, swizzle %d)", k->params[t->param].name,
                     t->rank == 3 ? "3-D, " : "", t->box[1], t->box[0], t->swizzle);
}

/* --stats: an entry's stores written by TMA (--tma-store), at each;
 * its loads copied by TMA (not with --no-tma), at the first; its
 * product issued one iteration ahead (--early-products), at the
 * product; its loop whose slots are released through mbarriers
 * (--slot-sync=mbarrier), at the loop; its loop whose warpgroups take
 * turns at the products (--pingpong), at the loop; whether its programs
 * walk the tiles (--persistent), or why not, at the kernel; the barriers
 * plan/memorder.c put in (the planned copy's IR_BARRIERs marked so), at
 * the access each precedes. */
static void barrier_notes(Diag *dg, const LwEntry *en, const char *cfg, const IrBlock *b) {
    for (const IrOp *op = b->first; op; op = op->next) {
        if (op->op == IR_BARRIER && op->iattr[0] == 1 && op->next)
            dg_note(dg, op->loc, "entry '%s' (%s): a barrier before this %s, %s: other "
                    "threads of the program may have accessed its addresses",
                    en->name, cfg, ir_op_name[op->next->op], op->sattr);
        for (int r = 0; r < op->nregions; r++) barrier_notes(dg, en, cfg, op->regions[r]);
    }
}

static void print_plan_notes(Arena *ar, Diag *dg, const LwEntry *en) {
    const LyPlan *p = en->plan;
    const IrKernel *k = en->kernel;
    const char *cfg = ir_config_text(ar, k->cparams, k->ncparams, k->warps, k->stages);
    if (en->persistent)
        dg_note(dg, k->loc, "entry '%s' (%s): persistent: its programs walk the grid's tiles, "
                "as many launched as fit at once", en->name, cfg);
    if (en->not_persistent)
        dg_note(dg, k->loc, "entry '%s' (%s): not persistent: %s", en->name, cfg,
                en->not_persistent);
    if (p->early)
        dg_note(dg, p->early->loc, "entry '%s' (%s): this product is issued one iteration "
                "ahead, under the rest of the loop's body", en->name, cfg);
    if (p->released) {
        const LyPipe *q = ly_pipe_of(p, p->released);
        dg_note(dg, p->released->loc, "entry '%s' (%s): this loop's slots are released "
                "%s (no CTA barrier in the loop%s)", en->name, cfg,
                q->release == LY_RELEASE_LAST ? "by counters, the last warp refilling"
                                              : "through mbarriers",
                q->drain_if ? " but its epilogue's" : "");
    }
    if (p->pingpong)
        dg_note(dg, p->pingpong->loc, "entry '%s' (%s): this loop's warpgroups take turns "
                "at its products", en->name, cfg);
    if (p->ws_loop)
        dg_note(dg, p->ws_loop->loc, "entry '%s' (%s): warp-specialized: a producer "
                "warpgroup (%d threads more) issues this loop's copies", en->name, cfg,
                32 * TLB_WARPSPEC_WARPS);
    if (p->ws_refused)
        dg_note(dg, k->loc, "entry '%s' (%s): not warp-specialized: %s", en->name, cfg,
                p->ws_refused);
    for (int i = 0; i < p->ntstores; i++) {
        const LyTma *t = p->tstores[i].t;
        dg_note(dg, t->op->loc, "entry '%s' (%s): this store is written by TMA: %s",
                en->name, cfg, tma_map_text(ar, k, t));
    }
    const char *list = "";
    const IrOp *first = NULL;
    int nloads = 0;
    for (int i = 0; i < p->ntmaps; i++) {
        const LyTma *t = p->tmaps[i];
        if (t->op->op != IR_LOAD) continue;
        list = ar_printf(ar, "%s%s%s", list, nloads++ ? ", " : "", tma_map_text(ar, k, t));
        if (!first) first = t->op;
    }
    if (first)
        dg_note(dg, first->loc, "entry '%s' (%s): %d load%s copied by TMA: %s", en->name, cfg,
                nloads, nloads > 1 ? "s" : "", list);
    barrier_notes(dg, en, cfg, k->body);
}

/* --stats: one line per entry on stderr; a warning per spilling entry, a
 * note per entry with a loop that could not be pipelined. smem counts the
 * dynamic shared memory ptxas does not see. */
static void print_stats(Arena *ar, Diag *dg, const char *arch,
                        const LwOutput *lo, const LwStats *st, int n) {
    fprintf(stderr, "%-32s %5s %9s %9s %7s %7s\n", "entry", "regs",
            "spill-st", "spill-ld", "stack", "smem");
    for (int i = 0; i < n; i++) {
        long long dyn = 0;
        for (int e = 0; e < lo->nentries; e++)
            if (strcmp(lo->entries[e].name, st[i].entry) == 0)
                dyn = lo->entries[e].dyn_shared_bytes;
        fprintf(stderr, "%-32s %5d %9lld %9lld %7lld %7lld\n", st[i].entry,
                st[i].registers, (long long)st[i].spill_stores,
                (long long)st[i].spill_loads, (long long)st[i].stack,
                (long long)st[i].shared + dyn);
    }
    for (int i = 0; i < n; i++) {
        if (!st[i].spill_stores && !st[i].spill_loads) continue;
        for (int e = 0; e < lo->nentries; e++)
            if (strcmp(lo->entries[e].name, st[i].entry) == 0)
                dg_warn(dg, lo->entries[e].kernel->loc,
                        "entry '%s' spills registers (%lld bytes stored, "
                        "%lld loaded)", st[i].entry,
                        (long long)st[i].spill_stores,
                        (long long)st[i].spill_loads);
    }
    for (int e = 0; e < lo->nentries; e++) {
        const LwEntry *en = &lo->entries[e];
        if (!en->unpipelined) continue;
        const char *why = en->unpipelined_need
            ? ar_printf(ar, "its cp.async rings and scratch would need %lld KiB of "
                        "shared memory, %s allows %lld KiB",
                        (long long)(en->unpipelined_need + 1023) / 1024, arch,
                        (long long)lw_arch_max_shared(arch) / 1024)
            : "a cp.async copy would cross a 16-byte swizzle unit";
        const IrKernel *k = en->kernel;
        dg_note(dg, en->unpipelined_loop, "entry '%s' (%s): %d loop%s lowered without "
                "pipelining: %s", en->name,
                ir_config_text(ar, k->cparams, k->ncparams, k->warps, k->stages),
                en->unpipelined, en->unpipelined > 1 ? "s" : "", why);
    }
    for (int e = 0; e < lo->nentries; e++) print_plan_notes(ar, dg, &lo->entries[e]);
}

/* The first product of block b (nested blocks included) that runs on
 * mma.sync though the target has wgmma, or on wgmma at a cost (operands
 * moved K-major by the threads), and the sentence that says so
 * (plan/lowering.c). */
static const IrOp *first_mma_note(Arena *ar, const LwEntry *en, const IrBlock *b,
                                  const char **why) {
    for (const IrOp *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++) {
            const IrOp *d = first_mma_note(ar, en, op->regions[r], why);
            if (d) return d;
        }
        if (op->op != IR_DOT) continue;
        const char *x = ly_mma_reason(ar, en->plan, en->variant->k, op);
        if (x) {
            *why = ar_printf(ar, "this product runs on mma.sync, not wgmma: %s", x);
            return op;
        }
        if ((x = ly_wgmma_note(ar, en->plan, op))) {
            *why = ar_printf(ar, "this product runs on wgmma; %s", x);
            return op;
        }
    }
    return NULL;
}

/* --stats on a target with warpgroup MMA: each entry's first product
 * left on mma.sync, with the reason, or run on wgmma at a cost, with
 * what it pays, at the product; the variants of one configuration that
 * agree share the note. */
static void print_mma_notes(Arena *ar, Diag *dg, const LwOutput *lo, const char *arch) {
    if (!arch || !lw_arch_wgmma(arch) || !lo->nentries) return;
    const IrOp **dot = ar_alloc(ar, sizeof *dot * (size_t)lo->nentries);
    const char **why = ar_alloc(ar, sizeof *why * (size_t)lo->nentries);
    for (int e = 0; e < lo->nentries; e++) {
        why[e] = NULL;
        dot[e] = first_mma_note(ar, &lo->entries[e], lo->entries[e].variant->k->body, &why[e]);
    }
    for (int e = 0; e < lo->nentries;) {
        const LwEntry *en = &lo->entries[e];
        const char *names = ar_printf(ar, "'%s'", en->name);
        int n = 1;
        for (; e + n < lo->nentries && lo->entries[e + n].config == en->config; n++) {
            const IrOp *d2 = dot[e + n];
            if (!dot[e] || !d2 || d2->loc.line != dot[e]->loc.line ||
                d2->loc.col != dot[e]->loc.col || strcmp(why[e + n], why[e]) != 0)
                break;
            names = ar_printf(ar, "%s, '%s'", names, lo->entries[e + n].name);
        }
        if (dot[e]) {
            const IrKernel *k = en->kernel;
            dg_note(dg, dot[e]->loc, "%s %s (%s): %s", n > 1 ? "entries" : "entry", names,
                    ir_config_text(ar, k->cparams, k->ncparams, k->warps, k->stages), why[e]);
        }
        e += n;
    }
}

/* The op of b (regions included) whose result is the largest padded tile
 * (ir.h, ty_pad; by padded elements, the first of equals), or best. */
static const IrOp *largest_padded(const IrBlock *b, const IrOp *best) {
    for (const IrOp *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++) best = largest_padded(op->regions[r], best);
        if (op->nres && ty_padded(op->res[0]->ty) &&
            (!best || ty_numel(ty_pad(op->res[0]->ty)) > ty_numel(ty_pad(best->res[0]->ty))))
            best = op;
    }
    return best;
}

/* --stats: per configuration, the largest tile whose extents are not all
 * powers of two, where it is made: the padded shape its layout has and
 * the share of its registers the padding takes, what it costs beside the
 * power-of-two tile a mask would need. */
static void print_padding(Arena *ar, Diag *dg, const LwOutput *lo) {
    for (int e = 0; e < lo->nentries; e++) {
        const IrKernel *k = lo->entries[e].kernel;
        if (e > 0 && lo->entries[e - 1].config == lo->entries[e].config) continue;
        const IrOp *op = largest_padded(k->body, NULL);
        if (!op) continue;
        Type t = op->res[0]->ty, p = ty_pad(t);
        const char *shape = "";
        for (int d = 0; d < p.rank; d++)
            shape = ar_printf(ar, "%s%s%d", shape, d ? ", " : "", (int)p.dim[d]);
        dg_note(dg, op->loc, "kernel '%s' (%s): its largest tile '%s' is laid out as [%s]; "
                "%d%% of its registers hold padding, which is never loaded or stored",
                k->name, ir_config_text(ar, k->cparams, k->ncparams, k->warps, k->stages),
                ty_str(ar, t), shape,
                (int)((ty_numel(p) - ty_numel(t)) * 100 / ty_numel(p)));
    }
}

/* --stats: each specialized entry's guard, each fact with the first op
 * whose plan needs it (plan/guard.c). */
static void print_guards(Arena *ar, Diag *dg, const LwOutput *lo) {
    for (int e = 0; e < lo->nentries; e++) {
        const LwEntry *en = &lo->entries[e];
        const LyVariant *v = en->variant;
        const IrKernel *k = en->kernel;
        if (!v->needed_by) continue;
        const char *line = "";
        for (int i = 0; i < k->nparams; i++) {
            int log2 = ly_fact(&v->facts, i), one = ly_fact_one(&v->facts, i);
            if (!log2 && !one) continue;
            const IrOp *op = v->needed_by[i];
            const char *what = one ? ar_printf(ar, "%s equal to 1", k->params[i].name)
                : k->params[i].ty.k == SK_PTR
                ? ar_printf(ar, "%s aligned to %d bytes", k->params[i].name, 1 << log2)
                : ar_printf(ar, "%s a multiple of %d", k->params[i].name, 1 << log2);
            const char *where = op ? ar_printf(ar, " (%s at %s:%u:%u)", ir_op_name[op->op],
                                               dg_file_path(dg, op->loc.file), op->loc.line,
                                               op->loc.col)
                                   : "";
            line = ar_printf(ar, "%s%s%s%s", line, *line ? ", " : "", what, where);
        }
        fprintf(stderr, "%s guard: %s\n", en->name, *line ? line : "none");
    }
}

/* --stats: each entry that asks libtile to leave L1 its room
 * (LwEntry.l1_programs, lower/kernel.c). */
static void print_l1(const LwOutput *lo) {
    for (int e = 0; e < lo->nentries; e++) {
        const LwEntry *en = &lo->entries[e];
        if (en->l1_programs)
            fprintf(stderr, "%s L1: shared memory carved out for %d programs per SM, the "
                    "rest stays L1 (it holds only conversions and reductions)\n",
                    en->name, en->l1_programs);
    }
}

/* --stats: each entry whose registers were capped to fit as many
 * programs per SM as its configuration's first entry (lower/regcap.c). */
static void print_reg_caps(const LwOutput *lo, const char *arch) {
    LwSm sm = lw_arch_sm(arch);
    for (int e = 0, first = 0; e < lo->nentries; e++) {
        const LwEntry *en = &lo->entries[e];
        if (en->config != lo->entries[first].config) first = e;
        if (!en->reg_cap) continue;
        int threads = 32 * en->warps;
        fprintf(stderr, "%s registers: at most %d (.maxnreg) for %d programs per SM, as "
                "%s; ptxas chose %d (%d programs)\n", en->name, en->reg_cap,
                lw_sm_programs(sm, en->reg_cap, threads, en->shared_bytes),
                lo->entries[first].name, en->reg_natural,
                lw_sm_programs(sm, en->reg_natural, threads, en->shared_bytes));
    }
}

/* --stats: each entry's accesses realigned at run time (plan/realign.c):
 * rows rotated to their own alignment, each 16-byte group tested; loads
 * of other offsets split (read in their own rotation, then moved). */
static void print_realigned(Arena *ar, Diag *dg, const LwOutput *lo) {
    for (int e = 0; e < lo->nentries; e++) {
        const LwEntry *en = &lo->entries[e];
        const LyRealign *r = en->variant && en->variant->ly ? &en->variant->ly->realign : NULL;
        if (!r || !r->n) continue;
        const char *line = "";
        for (int i = 0; i < r->n; i++) {
            const IrOp *op = r->v[i].op;
            const char *path = dg_file_path(dg, op->loc.file);
            if (r->v[i].moved && !r->v[i].vec)   /* op: the gather */
                line = ar_printf(ar, "%s%sload at %s:%u:%u (other offsets: element by "
                                 "element, moved through shared memory)", line, i ? ", " : "",
                                 path, op->loc.line, op->loc.col);
            else
                line = ar_printf(ar, "%s%s%s at %s:%u:%u (%d a group%s)", line, i ? ", " : "",
                                 ir_op_name[op->op], path, op->loc.line, op->loc.col,
                                 r->v[i].vec, r->v[i].moved ? ", other offsets: moved "
                                 "through shared memory" : "");
        }
        fprintf(stderr, "%s realigned: %s\n", en->name, line);
    }
}

/* The sema options from the command line; the stdlib is sm_stdlib_dir's
 * ($TILE_STDLIB, else the one beside tilec, else the installed one). */
static SmOptions sema_options(const Opts *o, Arena *ar) {
    SmOptions so = {o->defines.v, o->defines.n, o->include_dirs.v,
                    o->include_dirs.n, sm_stdlib_dir(ar), o->debug};
    return so;
}

/* --emit=llvm|ptx|cubin|bundle|c and --stats: the GPU path, through the
 * one pipeline function (driver/compile.c). */
static void generate(const Opts *o, Arena *ar, Diag *dg, uint32_t file,
                     const char *text, size_t len, FILE *out) {
    int bundle = o->emit == EMIT_BUNDLE || o->emit == EMIT_C;
    TcOptions to = {.arch = o->arch, .opt_level = o->opt_level, .debug = o->debug,
                    .fp_contract_off = o->fp_contract_off, .no_tma = o->no_tma,
                    .early_products = o->early_products, .persistent = o->persistent,
                    .slot_sync = o->slot_sync, .pingpong = o->pingpong,
                    .split_loads = o->split_loads, .warpspec = o->warpspec,
                    .tma_store = o->tma_store, .sema = sema_options(o, ar),
                    .want = (o->emit == EMIT_LLVM ? TC_LLVM : 0u) |
                            (o->emit == EMIT_CUBIN || (bundle && lw_ptxas_path(ar))
                                 ? TC_CUBIN : 0u) |
                            (bundle ? TC_BUNDLE : 0u) | (o->stats ? TC_STATS : 0u)};
    TcOutput res;
    int rc = tc_compile(ar, dg, file, text, len, &to, &res);
    if (rc == 0 && o->emit == EMIT_LLVM) fputs(res.lw.llvm, out);
    if (rc == 0 && o->emit == EMIT_PTX) fputs(res.lw.ptx, out);
    if (rc == 0 && o->emit == EMIT_CUBIN && res.cubin) fwrite(res.cubin, 1, res.cubin_len, out);
    if (rc == 0 && bundle) fwrite(res.bundle, 1, res.bundle_len, out);
    if (rc == 0 && o->stats) {
        print_stats(ar, dg, o->arch, &res.lw, res.stats, res.nstats);
        print_guards(ar, dg, &res.lw);
        print_realigned(ar, dg, &res.lw);
        print_l1(&res.lw);
        print_reg_caps(&res.lw, o->arch);
        print_mma_notes(ar, dg, &res.lw, o->arch);
        print_padding(ar, dg, &res.lw);
    }
    free(res.bundle);
}

/* Runs the requested stages on `text`, printing into `out`. */
static void compile(const Opts *o, Arena *ar, Diag *dg, uint32_t file,
                    const char *text, size_t len, FILE *out) {
    if (o->emit == EMIT_TOKENS) {
        ps_print_tokens(out, ar, dg, file, text, len);
        return;
    }
    if (o->emit == EMIT_LLVM || o->emit == EMIT_PTX || o->emit == EMIT_CUBIN ||
        o->emit == EMIT_BUNDLE || o->emit == EMIT_C || o->stats) {
        generate(o, ar, dg, file, text, len, out);
        return;
    }
    if (o->emit == EMIT_AST) {
        AstFile *ast = ps_parse(ar, dg, file, text, len);
        if (dg_errors(dg)) return;
        if (ast->nitems == 0)
            dg_error(dg, (Loc){file, 0, 0, 0, 0}, "no items in file");
        else
            ps_print_ast(out, ast);
        return;
    }
    SmOptions so = sema_options(o, ar);
    IrModule *m = tc_check(ar, dg, file, text, len, &so);
    if (m && o->emit == EMIT_DEPS)
        for (int i = 0; i < m->nfiles; i++) fprintf(out, "%s\n", m->files[i]);
    if (m && o->variant >= 0)
        ly_assign_module(ar, m, o->variant, lw_assign_flags(o->arch, o->split_loads));
    if (m && o->emit == EMIT_IR) ir_print_module(out, m);
}

/* --emit=c: NAME.c and NAME.h from the bundle bytes (-o NAME, or
 * NAME.c); 0 or 1. */
static int write_c(const Opts *o, Arena *ar, Diag *dg, const char *source,
                   const char *bundle, size_t size) {
    size_t n = strlen(o->output);
    if (n > 2 && strcmp(o->output + n - 2, ".c") == 0) n -= 2;
    char *base = ar_strndup(ar, o->output, n);
    const char *slash = strrchr(base, '/'), *name = slash ? slash + 1 : base;
    if (!is_ident(name, strlen(name))) {
        dg_plain(dg, DG_ERROR, "--emit=c: '%s' is not a C identifier (the output "
                 "name prefixes every generated function)", name);
        return 1;
    }
    char *cbuf = NULL, *hbuf = NULL, err[512];
    size_t clen = 0, hlen = 0;
    FILE *c = open_memstream(&cbuf, &clen), *h = open_memstream(&hbuf, &hlen);
    char *header = ar_printf(ar, "%s.h", name);
    int status = c && h && emit_c(bundle, size, source, name, header, c, h, err, sizeof err)
                     ? 1 : 0;
    if (c) fclose(c);
    if (h) fclose(h);
    if (status) {
        dg_plain(dg, DG_ERROR, "--emit=c: %s", c && h ? err : "out of memory");
    } else {
        const char *cpath = ar_printf(ar, "%s.c", base), *hpath = ar_printf(ar, "%s.h", base);
        const char *bad = write_file_atomic(hpath, hbuf, hlen) ? hpath
                        : write_file_atomic(cpath, cbuf, clen) ? cpath : NULL;
        if (bad) {
            dg_plain(dg, DG_ERROR, "cannot write '%s': %s", bad, strerror(errno));
            status = 1;
        }
    }
    free(cbuf);
    free(hbuf);
    return status;
}

static int run(const Opts *o, Arena *ar) {
    Diag *dg = dg_new(ar, stderr, o->color);
    dg_set_limit(dg, o->error_limit);
    const char *path = strcmp(o->input, "-") == 0 ? "<stdin>" : o->input;
    struct stat st;
    if (strcmp(o->input, "-") != 0 && stat(o->input, &st) == 0 &&
        S_ISDIR(st.st_mode)) {
        dg_plain(dg, DG_ERROR, "cannot open '%s': %s", path, strerror(EISDIR));
        return 1;
    }
    size_t len;
    char *text = read_file(ar, o->input, &len);
    if (!text) {
        dg_plain(dg, DG_ERROR, "cannot open '%s': %s", path, strerror(errno));
        return 1;
    }
    uint32_t file = dg_add_file(dg, path, text, len);

    char *buf = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buf, &size);
    if (!out) {
        dg_plain(dg, DG_ERROR, "out of memory");
        return 1;
    }
    compile(o, ar, dg, file, text, len, out);
    fclose(out);
    int status = dg_errors(dg) ? 1 : 0;
    const char *dest = o->output ? o->output : "-";
    if (status == 0 && o->emit == EMIT_C) {
        status = write_c(o, ar, dg, path, buf, size);
    } else if (status == 0 && (size > 0 || o->output) &&
        write_file_atomic(dest, buf, size) != 0) {
        dg_plain(dg, DG_ERROR, "cannot write '%s': %s", dest, strerror(errno));
        status = 1;
    }
    free(buf);
    dg_free(dg);
    return status;
}

int main(int argc, char **argv) {
    Arena *ar = ar_new();
    if (!ar) {
        fputs("tilec: error: out of memory\n", stderr);
        return 1;
    }
    Opts o = {.ar = ar, .color = -1, .error_limit = 20, .arch = "sm_90",
              .opt_level = 3, .variant = -1};
    int status = parse_args(&o, argc, argv);
    size_t outlen = o.output ? strlen(o.output) : 0;
    if (o.emit == EMIT_CHECK && outlen > 4 && strcmp(o.output + outlen - 4, ".tlb") == 0)
        o.emit = EMIT_BUNDLE;     /* -o FILE.tlb writes a bundle */
    if (status == 0 && o.emit == EMIT_C && !o.output && !o.help && !o.version)
        status = usage_error("--emit=c needs -o NAME (it writes NAME.c and NAME.h)");
    if (status == 0 && o.help) {
        print_help(stdout);
    } else if (status == 0 && o.version) {
        printf("tilec (%s) %s\nLLVM %s, NVPTX targets:", PACKAGE_NAME,
               PACKAGE_VERSION, lw_llvm_version());
        for (size_t i = 0; i < NARCHS; i++)
            if (lw_arch_supported(archs[i])) printf(" %s", archs[i]);
        const char *ptxas = lw_ptxas_path(ar);
        printf("\nptxas: %s\n", ptxas ? ptxas : "none (bundles hold PTX only, which the "
                                                 "driver compiles at load)");
    } else if (status == 0) {
        status = run(&o, ar);
    }
    ar_free(ar);
    return status;
}
