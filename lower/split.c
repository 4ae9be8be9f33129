/*
 * split.c — a module of several configurations optimized and emitted in
 * parts, on threads.
 *
 * LLVM's optimization and the NVPTX back end are most of tilec's own
 * time (docs/PERF.md, session 36) and run on one thread per module. A
 * file with a @tune list puts every configuration's entries into one
 * module, and its entries never call one another: each configuration can
 * be optimized and emitted apart. So, where the module holds entries of
 * more than one configuration (entries named KERNEL__cN__TAG), without
 * debug info (one compile unit, one line table) and without --emit=llvm
 * (one module to print):
 *
 *   - the configurations, in module order, are cut into at most
 *     SPLIT_PARTS (32) contiguous parts of about equal size
 *     (instructions counted): a rule of the module alone, so that the
 *     PTX is the same whatever the machine's CPU count. More parts than
 *     threads balance the load: a part's time is not quite in
 *     proportion to its instructions, and the threads take the next
 *     part as they finish. On 16 cores (an H100 machine, session 37)
 *     examples/torch/mlp.tile in bf16 took 65.7 s in 8 parts, 47.4 s
 *     in 16, 35.0 s in 32; on 2 cores 107.7 and 102.7 s (8, 32), and
 *     examples/matmul.tile 2.65 and 2.52 s (4.75 and 4.63 on one);
 *     TILE_SPLIT_PARTS at build time sets another bound;
 *   - the module is written once as bitcode; each part reads it lazily
 *     into its own LLVM context (a context is one thread's) and links
 *     only its own entries into an empty module, their bodies read, the
 *     others' not (the entries it does not keep become linkonce_odr
 *     first, the linker then takes only what is referenced: libdevice's
 *     load does the same);
 *   - each part then runs lw_optimize_emit as the whole module would
 *     (libdevice, internal linkage, O3, PTX) with its own target machine,
 *     arena and Diag (messages to memory), on min(parts, CPUs) threads
 *     taking parts in order;
 *   - the parts' PTX joins in part order: the first whole, each later
 *     one from after its header (.version, .target, .address_size).
 *     Internal symbols that survive optimization (a libdevice table, a
 *     function not inlined) would clash, so those of part k >= 1 are
 *     renamed NAME__pK (lw_rename_part_locals); entries and their
 *     shared-memory symbols already carry the entry's name.
 *
 * A module of one configuration is emitted whole, as before, so its PTX
 * is unchanged. A part's messages go to a Diag of its own (in memory);
 * after the threads end the first failed part's first message is
 * reported through the compilation's Diag, as the whole module's would
 * have been.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT */
#endif
#include "config.h"

#include "lower/lw.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Linker.h>

#ifndef TILE_SPLIT_PARTS
#define TILE_SPLIT_PARTS 32
#endif
enum { SPLIT_PARTS = TILE_SPLIT_PARTS };

typedef struct Part {
    int first, end;          /* its entries, [first, end) in module order */
    char *ptx;               /* malloc'd PTX, on success */
    size_t ptx_len;
    char *error;             /* malloc'd: its first error's message, or NULL */
    int failed;
} Part;

typedef struct Split {
    const LwCtx *c;
    LLVMTargetRef target;    /* NVPTX, registered before the threads */
    const char *bitcode;     /* the whole module */
    size_t bitcode_len;
    char **names;            /* entry names, module order (malloc'd) */
    int nentries;
    Part parts[SPLIT_PARTS];
    int nparts;
    pthread_mutex_t lock;
    int next;                /* the next part a thread takes */
} Split;

/* The length of NAME's configuration key, KERNEL__cN (its prefix before
 * the last "__"), or the whole name where it has none. */
static size_t config_key(const char *name) {
    const char *last = NULL;
    for (const char *p = strstr(name, "__"); p; p = strstr(p + 1, "__")) last = p;
    return last ? (size_t)(last - name) : strlen(name);
}

static long count_insts(LLVMValueRef fn) {
    long n = 0;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
        for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) n++;
    return n;
}

/* The entries' names and the parts: configurations cut where the
 * running count of instructions passes each k/SPLIT_PARTS of the total.
 * Returns the number of configurations. */
static int plan_parts(Split *s, LLVMModuleRef m) {
    int cap = 0, nconf = 0;
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn))
        cap += lw_is_entry(fn);
    s->names = calloc((size_t)cap + 1, sizeof *s->names);
    long *size = calloc((size_t)cap + 1, sizeof *size);
    int *conf = calloc((size_t)cap + 1, sizeof *conf);
    long total = 0;
    if (!s->names || !size || !conf) {
        free(size);
        free(conf);
        return 0;
    }
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
        if (!lw_is_entry(fn)) continue;
        size_t len;
        const char *name = LLVMGetValueName2(fn, &len);
        int i = s->nentries;
        if (!(s->names[i] = strndup(name, len))) break;   /* then emitted whole */
        s->nentries++;
        size[i] = count_insts(fn);
        total += size[i];
        size_t k = config_key(name);
        int same = i > 0 && config_key(s->names[i - 1]) == k &&
                   !strncmp(s->names[i - 1], name, k);
        conf[i] = same ? conf[i - 1] : nconf++;
    }
    if (s->nentries < cap) nconf = 0;
    long run = 0;
    for (int i = 0; i < s->nentries; i++) {
        if (i == 0 || (conf[i] != conf[i - 1] && s->nparts < SPLIT_PARTS &&
                       run * SPLIT_PARTS >= total * s->nparts)) {
            if (s->nparts) s->parts[s->nparts - 1].end = i;
            s->parts[s->nparts++].first = i;
        }
        run += size[i];
    }
    if (s->nparts) s->parts[s->nparts - 1].end = s->nentries;
    free(size);
    free(conf);
    return nconf;
}

static int in_part(const Split *s, const Part *p, const char *name, size_t len) {
    for (int i = p->first; i < p->end; i++)
        if (strlen(s->names[i]) == len && !memcmp(s->names[i], name, len)) return 1;
    return 0;
}

/* Part p's module in w's context: the bitcode read lazily, the entries
 * of other parts left to the linker to drop. NULL after a message. */
static LLVMModuleRef part_module(const Split *s, const Part *p, LwCtx *w) {
    LLVMMemoryBufferRef buf =
        LLVMCreateMemoryBufferWithMemoryRange(s->bitcode, s->bitcode_len, "tile", 0);
    LLVMModuleRef lazy, m;
    if (LLVMGetBitcodeModuleInContext2(w->ctx, buf, &lazy)) {
        LLVMDisposeMemoryBuffer(buf);
        dg_plain(w->dg, DG_ERROR, "internal error: cannot read a part's bitcode");
        return NULL;
    }
    for (LLVMValueRef fn = LLVMGetFirstFunction(lazy); fn; fn = LLVMGetNextFunction(fn)) {
        size_t len;
        const char *name = LLVMGetValueName2(fn, &len);
        if (lw_is_entry(fn) && !in_part(s, p, name, len))
            LLVMSetLinkage(fn, LLVMLinkOnceODRLinkage);
    }
    m = LLVMModuleCreateWithNameInContext("tile", w->ctx);
    LLVMSetTarget(m, LLVMGetTarget(lazy));
    LLVMSetDataLayout(m, LLVMGetDataLayoutStr(lazy));
    if (LLVMLinkModules2(m, lazy)) {   /* takes lazy (and buf) */
        LLVMDisposeModule(m);
        dg_plain(w->dg, DG_ERROR, "internal error: cannot link a part of the module");
        return NULL;
    }
    /* the shared-memory declarations of entries left out */
    for (LLVMValueRef g = LLVMGetFirstGlobal(m), next; g; g = next) {
        next = LLVMGetNextGlobal(g);
        if (LLVMIsDeclaration(g) && !LLVMGetFirstUse(g)) LLVMDeleteGlobal(g);
    }
    return m;
}

/* Optimizes and emits part k on this thread. */
static void run_part(Split *s, int k) {
    Part *p = &s->parts[k];
    Arena *ar = ar_new();
    LwCtx w = {.ar = ar, .opt = s->c->opt, .part = k};
    w.dg = dg_new(ar, NULL, 0);   /* messages kept in memory */
    p->failed = 1;
    if (lw_target_machine(&w, s->target) == 0) {
        w.ctx = LLVMContextCreate();
        w.b = LLVMCreateBuilderInContext(w.ctx);
        lw_set_types(&w);
        w.mod = part_module(s, p, &w);
        char *ptx = NULL;
        size_t len = 0;
        if (w.mod && lw_optimize_emit(&w, &ptx, &len, NULL) == 0 &&
            (p->ptx = malloc(len + 1))) {
            memcpy(p->ptx, ptx, len + 1);
            p->ptx_len = len;
            p->failed = 0;
        }
    }
    if (w.b) LLVMDisposeBuilder(w.b);
    if (w.mod) LLVMDisposeModule(w.mod);
    if (w.ctx) LLVMContextDispose(w.ctx);
    if (w.tm) LLVMDisposeTargetMachine(w.tm);
    const char *err = dg_first_error(w.dg);
    p->error = p->failed && err ? strdup(err) : NULL;
    dg_free(w.dg);
    ar_free(ar);
}

static void *worker(void *arg) {
    Split *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        int k = s->next < s->nparts ? s->next++ : -1;
        pthread_mutex_unlock(&s->lock);
        if (k < 0) return NULL;
        run_part(s, k);
    }
}

/* The CPUs this process may run on (its affinity: taskset, a container's
 * cpuset), else those online. */
static long usable_cpus(void) {
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
#endif
    return sysconf(_SC_NPROCESSORS_ONLN);
}

/* Runs every part on min(parts, CPUs) threads (this one among them). */
static void run_parts(Split *s) {
    long cpus = usable_cpus();
    int nthreads = cpus < 1 ? 1 : cpus < s->nparts ? (int)cpus : s->nparts;
    pthread_t t[SPLIT_PARTS];
    int started = 0;
    pthread_mutex_init(&s->lock, NULL);
    for (int i = 1; i < nthreads; i++)
        if (pthread_create(&t[started], NULL, worker, s) == 0) started++;
    worker(s);
    for (int i = 0; i < started; i++) pthread_join(t[i], NULL);
    pthread_mutex_destroy(&s->lock);
}

/* The parts' PTX joined into out (c's arena): 0, or -1 after reporting
 * each failed part's messages. */
static int join_parts(const LwCtx *c, Split *s, LwOutput *out) {
    size_t total = 0;
    int failed = 0;
    for (int k = 0; k < s->nparts; k++) {
        Part *p = &s->parts[k];
        if (p->failed && !failed) {
            /* the first failure's message as the whole module's would
             * read (parts fail alike: a libdevice that cannot be read) */
            const char *msg = p->error ? p->error
                                       : "internal error: optimizing a part of the module failed";
            int len = (int)strcspn(msg, "\n");
            dg_plain(c->dg, DG_ERROR, "%.*s", len, msg);
        }
        failed |= p->failed;
        total += p->ptx_len;
    }
    if (failed) return -1;
    char *ptx = ar_alloc(c->ar, total + 1), *at = ptx;
    for (int k = 0; k < s->nparts; k++) {
        const char *body = s->parts[k].ptx;
        const char *hdr = k ? strstr(body, ".address_size") : NULL;
        const char *nl = hdr ? strchr(hdr, '\n') : NULL;
        if (nl) body = nl + 1;
        size_t n = strlen(body);
        memcpy(at, body, n);
        at += n;
    }
    *at = '\0';
    out->ptx = ptx;
    out->ptx_len = (size_t)(at - ptx);
    return 0;
}

static void free_split(Split *s) {
    for (int i = 0; i < s->nentries; i++) free(s->names[i]);
    free(s->names);
    for (int k = 0; k < s->nparts; k++) {
        free(s->parts[k].ptx);
        free(s->parts[k].error);
    }
}

int lw_split_emit(LwCtx *c, LwOutput *out) {
    if (c->di || c->opt->want_llvm) return 1;
    Split s = {.c = c};
    if (plan_parts(&s, c->mod) < 2 || s.nparts < 2) {
        free_split(&s);
        return 1;
    }
    s.target = lw_nvptx_target();
    LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(c->mod);
    s.bitcode = LLVMGetBufferStart(bc);
    s.bitcode_len = LLVMGetBufferSize(bc);
    run_parts(&s);
    int r = join_parts(c, &s, out);
    LLVMDisposeMemoryBuffer(bc);
    free_split(&s);
    return r;
}

/* Whether `name` begins with the name of one of m's entries (an entry's
 * own symbol, as its shared memory: unique already). */
static int owned_by_entry(LLVMModuleRef m, const char *name, size_t len) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
        size_t n;
        const char *e = LLVMGetValueName2(fn, &n);
        if (lw_is_entry(fn) && n <= len && !memcmp(e, name, n)) return 1;
    }
    return 0;
}

static void rename_local(LwCtx *c, LLVMValueRef v) {
    size_t len;
    const char *name = LLVMGetValueName2(v, &len);
    if (owned_by_entry(c->mod, name, len)) return;
    char *renamed = ar_printf(c->ar, "%.*s__p%d", (int)len, name, c->part);
    LLVMSetValueName2(v, renamed, strlen(renamed));
}

void lw_rename_part_locals(LwCtx *c) {
    if (c->part == 0) return;
    for (LLVMValueRef v = LLVMGetFirstFunction(c->mod); v; v = LLVMGetNextFunction(v))
        if (!LLVMIsDeclaration(v) && LLVMGetLinkage(v) == LLVMInternalLinkage)
            rename_local(c, v);
    for (LLVMValueRef g = LLVMGetFirstGlobal(c->mod); g; g = LLVMGetNextGlobal(g))
        if (!LLVMIsDeclaration(g) && (LLVMGetLinkage(g) == LLVMInternalLinkage ||
                                      LLVMGetLinkage(g) == LLVMPrivateLinkage))
            rename_local(c, g);
}
