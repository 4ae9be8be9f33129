/*
 * lower.c — one compilation: the LLVM context, the NVPTX target machine,
 * the module that receives every entry, libdevice, the pass pipeline and
 * PTX emission.
 *
 * The flow of lw_compile: for each kernel configuration, run layout
 * assignment (plan/layout.h) and the lowering plan (plan/lowering.c) on
 * each variant's copy of the IR, judge the shared-memory budget on the
 * planned figures (scratch.c: a configuration that does not fit is never
 * lowered), and lower each variant to one LLVM function (kernel.c),
 * checking its shared memory against the plan. Then, in this order:
 * finalize debug info; verify; where the module holds several
 * configurations, the rest per part on threads (split.c), else here:
 * link libdevice if any `__nv_*` function is
 * called, making every non-kernel function internal so that O3 deletes
 * what is unused (libdevice is ~500 functions; a kernel calls a few);
 * mark float add/sub/mul `contract` unless --fp-contract=off
 * (elementwise.c); set `nvvm-reflect-ftz` = 0 (libdevice's
 * __nvvm_reflect queries then pick the IEEE, non-flushing paths); run
 * `default<On>` with the target machine (which brings NVVMReflect and the
 * NVPTX-specific passes); emit PTX into memory.
 *
 * The PTX ISA version is chosen per architecture (target.c): the one that
 * introduced it, at least 8.0, written as the `+ptxNN` target feature.
 * CUDA 13's ptxas accepts that for sm_80..sm_90a; `.version 8.0` also
 * loads under any driver from CUDA 12.0 on.
 */
#include "config.h"

#include "bundle/from_ir.h"
#include "lower/lw.h"

#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Transforms/PassBuilder.h>

/* ----------------------------------------------------------- libdevice */

static int lw_needs_libdevice(LLVMModuleRef m) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn;
         fn = LLVMGetNextFunction(fn)) {
        size_t len;
        const char *name = LLVMGetValueName2(fn, &len);
        if (LLVMIsDeclaration(fn) && len > 5 && strncmp(name, "__nv_", 5) == 0)
            return 1;
    }
    return 0;
}

static const char *lw_libdevice_path(const LwOptions *opt) {
    if (opt->libdevice)
        return opt->libdevice;
#ifdef TILE_LIBDEVICE
    return TILE_LIBDEVICE;
#else
    return NULL;
#endif
}

/* While libdevice is read: LLVM's error about it (its default handler
 * would print it and exit), kept for the diagnostic that names the file. */
static void lw_keep_llvm_error(LLVMDiagnosticInfoRef di, void *out) {
    if (LLVMGetDiagInfoSeverity(di) != LLVMDSError || *(char **)out) return;
    *(char **)out = LLVMGetDiagInfoDescription(di);
}

/* Links libdevice into c->mod. Returns 0 or -1 (reported). */
static int lw_link_libdevice(LwCtx *c) {
    const char *path = lw_libdevice_path(c->opt);
    if (!path) {
        dg_plain(c->dg, DG_ERROR, "math functions need libdevice, which this "
                 "build does not know (configure --with-cuda=DIR)");
        return -1;
    }
    LLVMMemoryBufferRef buf;
    char *msg = NULL;
    if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &msg)) {
        dg_plain(c->dg, DG_ERROR, "cannot read libdevice '%s': %s", path, msg);
        LLVMDisposeMessage(msg);
        return -1;
    }
    LLVMModuleRef ld;
    /* Lazily: function bodies are read only when the linker needs them.
     * Definitions become linkonce_odr, which the linker links only where
     * the module refers to them (transitively), so a kernel that calls
     * rsqrtf reads and optimizes a handful of libdevice's ~500 functions,
     * not all of them. (The buffer belongs to the lazy module.) */
    char *why = NULL;
    LLVMDiagnosticHandler handler = LLVMContextGetDiagnosticHandler(c->ctx);
    void *handler_ctx = LLVMContextGetDiagnosticContext(c->ctx);
    LLVMContextSetDiagnosticHandler(c->ctx, lw_keep_llvm_error, &why);
    int bad = LLVMGetBitcodeModuleInContext2(c->ctx, buf, &ld);
    LLVMContextSetDiagnosticHandler(c->ctx, handler, handler_ctx);
    if (bad) LLVMDisposeMemoryBuffer(buf);
    else
        for (LLVMValueRef fn = LLVMGetFirstFunction(ld); fn;
             fn = LLVMGetNextFunction(fn))
            if (LLVMGetLinkage(fn) == LLVMExternalLinkage && !LLVMIsDeclaration(fn))
                LLVMSetLinkage(fn, LLVMLinkOnceODRLinkage);
    if (bad) {
        dg_plain(c->dg, DG_ERROR, "cannot parse libdevice '%s'%s%s", path, why ? ": " : "",
                 why ? why : "");
        LLVMDisposeMessage(why);
        return -1;
    }
    LLVMDisposeMessage(why);
    LLVMSetTarget(ld, LW_TRIPLE);
    LLVMSetDataLayout(ld, LLVMGetDataLayoutStr(c->mod));
    if (LLVMLinkModules2(c->mod, ld)) {
        dg_plain(c->dg, DG_ERROR, "cannot link libdevice '%s'", path);
        return -1;
    }
    return 0;
}

/* Everything but the entries becomes internal, so that O3 drops the
 * unused libdevice functions and their tables. */
static void lw_internalize(LwCtx *c) {
    for (LLVMValueRef fn = LLVMGetFirstFunction(c->mod); fn;
         fn = LLVMGetNextFunction(fn))
        if (!LLVMIsDeclaration(fn) && !lw_is_entry(fn))
            LLVMSetLinkage(fn, LLVMInternalLinkage);
    for (LLVMValueRef g = LLVMGetFirstGlobal(c->mod); g;
         g = LLVMGetNextGlobal(g))
        if (!LLVMIsDeclaration(g))
            LLVMSetLinkage(g, LLVMInternalLinkage);
}

/* ------------------------------------------------------------- the run */

/* c->tm for c->opt's architecture and level, from `target` (NVPTX, as
 * lw_nvptx_target gives it: the registration is done once, before any
 * thread of split.c makes its own). Returns 0 or -1 (reported). */
int lw_target_machine(LwCtx *c, LLVMTargetRef target) {
    if (!target) {
        dg_plain(c->dg, DG_ERROR, "this LLVM has no NVPTX target");
        return -1;
    }
    char features[32];
    snprintf(features, sizeof features, "+ptx%d",
             lw_arch_ptx_version(c->opt->arch));
    /* -O3 runs the O3 IR pipeline but the back end at its default level:
     * at "aggressive", NVPTX's IR preparation runs GVN twice more after
     * straight-line strength reduction where it otherwise runs EarlyCSE —
     * 30% of the compile time of examples/stencil.tile, for byte-identical
     * PTX on every example (docs/PERF.md, compile time). */
    LLVMCodeGenOptLevel lvl = c->opt->opt_level <= 0 ? LLVMCodeGenLevelNone
                              : c->opt->opt_level == 1 ? LLVMCodeGenLevelLess
                                                       : LLVMCodeGenLevelDefault;
    c->tm = LLVMCreateTargetMachine(target, LW_TRIPLE, c->opt->arch, features,
                                    lvl, LLVMRelocDefault,
                                    LLVMCodeModelDefault);
    if (!c->tm) {
        dg_plain(c->dg, DG_ERROR, "cannot create a target machine for %s",
                 c->opt->arch);
        return -1;
    }
    return 0;
}

/* The common types of c->ctx. */
void lw_set_types(LwCtx *c) {
    c->i1 = LLVMInt1TypeInContext(c->ctx);
    c->i8 = LLVMInt8TypeInContext(c->ctx);
    c->i16 = LLVMInt16TypeInContext(c->ctx);
    c->i32 = LLVMInt32TypeInContext(c->ctx);
    c->i64 = LLVMInt64TypeInContext(c->ctx);
    c->f16 = LLVMHalfTypeInContext(c->ctx);
    c->bf16 = LLVMBFloatTypeInContext(c->ctx);
    c->f32 = LLVMFloatTypeInContext(c->ctx);
    c->f64 = LLVMDoubleTypeInContext(c->ctx);
    c->vd = LLVMVoidTypeInContext(c->ctx);
    c->gptr = LLVMPointerTypeInContext(c->ctx, LW_AS_GLOBAL);
    c->sptr = LLVMPointerTypeInContext(c->ctx, LW_AS_SHARED);
    c->gen_ptr = LLVMPointerTypeInContext(c->ctx, 0);
}

static int lw_init(LwCtx *c) {
    if (lw_target_machine(c, lw_nvptx_target()) != 0) return -1;
    c->ctx = LLVMContextCreate();
    c->mod = LLVMModuleCreateWithNameInContext("tile", c->ctx);
    LLVMSetTarget(c->mod, LW_TRIPLE);
    LLVMTargetDataRef td = LLVMCreateTargetDataLayout(c->tm);
    char *dl = LLVMCopyStringRepOfTargetData(td);
    LLVMSetDataLayout(c->mod, dl);
    LLVMDisposeMessage(dl);
    LLVMDisposeTargetData(td);
    c->b = LLVMCreateBuilderInContext(c->ctx);
    lw_set_types(c);
    return 0;
}

static void lw_dispose(LwCtx *c) {
    if (c->di) LLVMDisposeDIBuilder(c->di);
    if (c->b) LLVMDisposeBuilder(c->b);
    if (c->mod) LLVMDisposeModule(c->mod);
    if (c->ctx) LLVMContextDispose(c->ctx);
    if (c->tm) LLVMDisposeTargetMachine(c->tm);
}

static char *lw_arena_copy(Arena *ar, const char *s, size_t n) {
    char *d = ar_alloc(ar, n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/* Links libdevice, makes everything but the entries internal, optimizes
 * and emits c->mod: *ptx (NUL-terminated, in c->ar) and, where `llvm`,
 * the optimized IR. The serial path's whole module or one part of a
 * split one (split.c). Returns 0 or -1 (reported). */
int lw_optimize_emit(LwCtx *c, char **ptx, size_t *ptx_len, char **llvm) {
    char *msg = NULL;
    if (lw_needs_libdevice(c->mod) && lw_link_libdevice(c) != 0)
        return -1;
    lw_internalize(c);
    if (!c->opt->fp_contract_off) lw_allow_contract(c);
    LLVMAddModuleFlag(c->mod, LLVMModuleFlagBehaviorOverride,
                      "nvvm-reflect-ftz", 16,
                      LLVMValueAsMetadata(lw_i32(c, 0)));
    char passes[32];
    snprintf(passes, sizeof passes, "default<O%d>",
             c->opt->opt_level < 0 ? 0 : c->opt->opt_level > 3 ? 3
                                                               : c->opt->opt_level);
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef err = LLVMRunPasses(c->mod, passes, c->tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (err) {
        char *em = LLVMGetErrorMessage(err);
        dg_plain(c->dg, DG_ERROR, "internal error: LLVM passes: %s", em);
        LLVMDisposeErrorMessage(em);
        return -1;
    }
    lw_widen_narrow_ints(c);
    if (llvm) {
        char *ir = LLVMPrintModuleToString(c->mod);
        *llvm = lw_arena_copy(c->ar, ir, strlen(ir));
        LLVMDisposeMessage(ir);
    }
    lw_rename_part_locals(c);
    LLVMMemoryBufferRef buf;
    if (LLVMTargetMachineEmitToMemoryBuffer(c->tm, c->mod, LLVMAssemblyFile,
                                            &msg, &buf)) {
        dg_plain(c->dg, DG_ERROR, "internal error: PTX emission: %s", msg);
        LLVMDisposeMessage(msg);
        return -1;
    }
    *ptx_len = LLVMGetBufferSize(buf);
    *ptx = lw_arena_copy(c->ar, LLVMGetBufferStart(buf), *ptx_len);
    LLVMDisposeMemoryBuffer(buf);
    return 0;
}

/* Verifies, then optimizes and emits: on threads where the module holds
 * several configurations (split.c), else here. Returns 0 or -1. */
static int lw_finish(LwCtx *c, LwOutput *out) {
    char *msg = NULL;
    if (c->di) LLVMDIBuilderFinalize(c->di);
    if (LLVMVerifyModule(c->mod, LLVMReturnStatusAction, &msg)) {
        dg_plain(c->dg, DG_ERROR, "internal error: invalid LLVM IR: %s", msg);
        LLVMDisposeMessage(msg);
        return -1;
    }
    LLVMDisposeMessage(msg);
    int r = lw_split_emit(c, out);
    if (r <= 0) return r;
    return lw_optimize_emit(c, &out->ptx, &out->ptx_len,
                            c->opt->want_llvm ? &out->llvm : NULL);
}

/* ------------------------------------------------------------- budget */

/* "264 KiB", rounded up: a need just past the limit never reads as the
 * limit itself. */
static const char *lw_kib(Arena *ar, int64_t bytes) {
    return ar_printf(ar, "%lld KiB", (long long)((bytes + 1023) / 1024));
}

/* How many configurations kernel ks[i] has among ks[0 .. n-1]. */
static int lw_nconfigs(IrKernel *const *ks, int n, int i) {
    int count = 0;
    for (int j = 0; j < n; j++) count += strcmp(ks[j]->name, ks[i]->name) == 0;
    return count;
}

/* The budget rule (lower.h): configuration ks[i], planned as
 * `planned` (each variant's shared memory: the scratch and the rings,
 * static or dynamic, exactly what its launch will need, scratch.c), fits
 * when every variant's is within the architecture's limit. When not, it
 * is not lowered, and a note names it (a kernel of one configuration
 * gets an error instead). */
static int lw_fits(LwCtx *c, const int64_t *planned, int nv, IrKernel *const *ks, int n,
                   int i) {
    int64_t need = 0, max = lw_arch_max_shared(c->opt->arch);
    for (int v = 0; v < nv; v++)
        if (planned[v] > need) need = planned[v];
    if (need <= max) return 1;
    const IrKernel *k = ks[i];
    const char *size = ar_printf(c->ar, "needs %s of shared memory, %s allows %s",
                                 lw_kib(c->ar, need), c->opt->arch, lw_kib(c->ar, max));
    if (lw_nconfigs(ks, n, i) == 1)
        dg_error(c->dg, k->loc, "kernel '%s' does not fit: %s", k->name, size);
    else
        dg_note(c->dg, k->loc, "configuration %s of kernel '%s' skipped: %s",
                ir_config_text(c->ar, k->cparams, k->ncparams, k->warps, k->stages),
                k->name, size);
    return 0;
}

/* After the budget: an error for each kernel of several configurations
 * none of which fits, at its last one (fits[i] for ks[i]). Non-zero when
 * there was one. */
static int lw_none_fits(LwCtx *c, const char *fits, IrKernel *const *ks, int n) {
    int errors = dg_errors(c->dg);
    for (int i = 0; i < n; i++) {
        int any = 0, last = 1;
        for (int j = 0; j < n; j++) {
            if (strcmp(ks[j]->name, ks[i]->name) != 0) continue;
            any |= fits[j];
            last &= j <= i;
        }
        if (!any && last && lw_nconfigs(ks, n, i) > 1)
            dg_error(c->dg, ks[i]->loc, "no configuration of kernel '%s' fits in "
                     "the shared memory of %s (%s)", ks[i]->name, c->opt->arch,
                     lw_kib(c->ar, lw_arch_max_shared(c->opt->arch)));
    }
    return dg_errors(c->dg) > errors;
}

/* Lowers the planned variants vs[0 .. nv-1] of one configuration into
 * entries e[0 .. nv-1], checking each against its planned shared memory;
 * the generic one first, so that a kernel's PTX reads from the plain code
 * to the specialized. Returns 0, or -1 after an error. */
static int lw_variants(LwCtx *c, const LyVariant *vs, const LyPlan *const *plan,
                       const int64_t *planned, int nv, LwEntry *e) {
    int errors = dg_errors(c->dg);
    for (int v = nv - 1; v >= 0; v--) {
        const IrKernel *k = vs[v].k;
        const char *name = ar_printf(c->ar, "%s__c%d__%s", k->name, k->config_index,
                                     vs[v].tag);
        e[v].variant = &vs[v];
        e[v].plan = plan[v];
        lw_kernel(c, k, vs[v].ly, plan[v], &vs[v].facts, name, &e[v]);
        if (dg_errors(c->dg) > errors) return -1;
        if (e[v].shared_bytes != planned[v]) {
            dg_error(c->dg, k->loc, "internal error: entry '%s' takes %lld bytes of shared "
                     "memory, %lld planned", name, (long long)e[v].shared_bytes,
                     (long long)planned[v]);
            return -1;
        }
    }
    return 0;
}

/* The plan's flags (plan/layout.h) from the options: TMA copies,
 * products issued ahead, slots freed by barriers, warpgroups taking
 * turns, TMA stores, on a target with warpgroup MMA only. */
static int plan_flags(const LwOptions *o) {
    if (!lw_arch_wgmma(o->arch)) return 0;
    return (o->tma ? LY_PLAN_TMA : 0) | (o->early ? LY_PLAN_EARLY : 0) |
           (o->cta_sync ? LY_PLAN_CTA_SYNC : 0) | (o->pingpong ? LY_PLAN_PINGPONG : 0) |
           (o->tma_store ? LY_PLAN_TMA_STORE : 0) | (o->mbar_sync ? LY_PLAN_MBAR_SYNC : 0);
}

/* A product of b (nested blocks too) that layout assignment kept in f8
 * for wgmma and the plan leaves off it (its loop's rings do not fit, or
 * another product of the loop is not on wgmma): mma.sync has no f8. */
static int f8_off_wgmma(const LyPlan *p, const IrBlock *b) {
    for (const IrOp *op = b->first; op; op = op->next) {
        for (int r = 0; r < op->nregions; r++)
            if (f8_off_wgmma(p, op->regions[r])) return 1;
        if (op->op != IR_DOT || !ty_isf8((ScalarKind)op->args[0]->ty.k)) continue;
        const IrOp *loop = op->parent ? op->parent->parent : NULL;
        if (!loop || loop->op != IR_FOR || !ly_wgmma_planned(ly_pipe_of(p, loop), op)) return 1;
    }
    return 0;
}

/* Plans k's variants (vs, their plans and shared memory); returns how
 * many. Where a plan leaves an f8 product off wgmma, the configuration is
 * planned again with every f8 product widened to f16 (LY_ASSIGN_F8_WIDE:
 * mma.sync, or wgmma at k16; `--stats` says why). */
static int plan_kernel(LwCtx *c, const IrKernel *k, LyVariant *vs, const LyPlan **plan,
                       int64_t *planned) {
    int flags = lw_assign_flags(c->opt->arch, c->opt->split_loads), nv;
    for (;;) {
        nv = ly_plan_variants(c->ar, k, flags, vs);
        int again = 0;
        for (int v = 0; v < nv; v++) {
            LyPlan *p = ly_plan_lowering(c->ar, vs[v].k, vs[v].ly,
                                         lw_arch_max_shared(c->opt->arch), plan_flags(c->opt));
            if (c->opt->warpspec && (plan_flags(c->opt) & LY_PLAN_TMA))
                lw_ws_plan(c->ar, vs[v].k, p, lw_arch_max_shared(c->opt->arch));
            plan[v] = p;
            planned[v] = lw_planned_shared(c->ar, vs[v].k, plan[v]);
            again |= (flags & (LY_ASSIGN_WGMMA | LY_ASSIGN_F8_WIDE)) == LY_ASSIGN_WGMMA &&
                     f8_off_wgmma(plan[v], vs[v].k->body);
        }
        if (!again) return nv;
        flags |= LY_ASSIGN_F8_WIDE;
    }
}

/* Whether a plan of the nv has a loop lowered without its rings. */
static int any_unpipelined(const LyPlan *const *plan, int nv) {
    for (int v = 0; v < nv; v++)
        if (plan[v]->unpipelined) return 1;
    return 0;
}

int lw_compile(Arena *ar, Diag *dg, IrModule *m, const LwOptions *opt_in, LwOutput *out) {
    LwOptions opt = *opt_in;
    if (!opt.arch) opt.arch = "sm_90";
    memset(out, 0, sizeof *out);
    LwCtx c = {.ar = ar, .dg = dg, .opt = &opt};
    int rc = -1;
    if (lw_init(&c) != 0) goto done;
    if (opt.debug && m->nkernels)
        lw_di_init(&c, dg_file_path(dg, m->kernels[0]->loc.file));
    int nkernels = m->nkernels, kept = 0, first_errors = dg_errors(dg);
    out->entries = ar_alloc(ar, sizeof(LwEntry) * (size_t)(nkernels * LY_MAX_VARIANTS + 1));
    char *fits = ar_alloc(ar, (size_t)nkernels + 1);
    IrKernel **ks = ar_alloc(ar, sizeof *ks * (size_t)(nkernels + 1));
    memcpy(ks, m->kernels, sizeof *ks * (size_t)nkernels);
    for (int i = 0; i < nkernels; i++) {
        LyVariant *vs = ar_alloc(ar, sizeof *vs * LY_MAX_VARIANTS);
        const LyPlan *plan[LY_MAX_VARIANTS];
        int64_t planned[LY_MAX_VARIANTS];
        IrKernel *pk = opt.persistent ? ly_persistent(ar, ks[i]) : NULL, *k0 = ks[i];
        const char *refused = opt.persistent && !pk
                                  ? "not one tile a program computed by one loop of products "
                                    "(docs/cli.md, --persistent)"
                                  : NULL;
        int nv = plan_kernel(&c, pk ? pk : k0, vs, plan, planned);
        if (pk && nv > 0 && any_unpipelined(plan, nv)) {
            /* its epilogue's scratch beside the rings does not fit: as
             * written, one tile a program */
            pk = NULL;
            refused = "its epilogue's shared memory beside the loop's rings does not fit "
                      "(fewer stages or a smaller tile would)";
            nv = plan_kernel(&c, k0, vs, plan, planned);
        }
        if (pk) ks[i] = pk;
        fits[i] = (char)lw_fits(&c, planned, nv, ks, nkernels, i);
        if (!fits[i]) continue;   /* a budget error does not stop the others */
        if (lw_variants(&c, vs, plan, planned, nv, &out->entries[out->nentries]) != 0)
            goto done;
        for (int v = 0; v < nv; v++) {
            out->entries[out->nentries + v].config = kept;
            out->entries[out->nentries + v].persistent = pk != NULL;
            out->entries[out->nentries + v].not_persistent = refused;
        }
        out->nentries += nv;
        m->kernels[kept++] = ks[i];
    }
    m->nkernels = kept;
    if (lw_none_fits(&c, fits, ks, nkernels) || dg_errors(dg) > first_errors)
        goto done;
    if (lw_finish(&c, out) != 0) goto done;
    rc = 0;
done:
    lw_dispose(&c);
    return rc;
}

/* The guard bytes of facts f, for a bundle (bundle.h: a log2, or
 * TLB_GUARD_ONE). */
static const uint8_t *lw_guard(Arena *ar, const LyFacts *f) {
    uint8_t *g = ar_alloc(ar, (size_t)f->n + 1);
    for (int i = 0; i < f->n; i++)
        g[i] = (uint8_t)(ly_fact_one(f, i) ? (int)TLB_GUARD_ONE : ly_fact(f, i));
    return g;
}

/* The tensor maps of plan p (plan/tma.c) for a bundle. */
static const TlbCodeTmap *lw_code_tmaps(Arena *ar, const LyPlan *p) {
    if (!p->ntmaps) return NULL;
    TlbCodeTmap *t = ar_alloc(ar, sizeof *t * (size_t)p->ntmaps);
    for (int i = 0; i < p->ntmaps; i++) {
        const LyTma *m = p->tmaps[i];
        t[i] = (TlbCodeTmap){m->param, m->elem, m->swizzle, m->rank, {m->box[0], m->box[1]},
                             {m->bound[0], m->bound[1]}, {m->stride, m->bstride}};
    }
    return t;
}

_Static_assert((int)LW_WS_WARPS == (int)TLB_WARPSPEC_WARPS, "the producer warpgroup libtile launches");

struct TlbCodeVariant *lw_code_variants(Arena *ar, const LwOutput *res) {
    TlbCodeVariant *vs = ar_alloc(ar, sizeof *vs * (size_t)(res->nentries + 1));
    for (int e = 0; e < res->nentries; e++) {
        const LwEntry *en = &res->entries[e];
        vs[e] = (TlbCodeVariant){en->config, lw_guard(ar, &en->variant->facts),
                                 (uint32_t)en->dyn_shared_bytes, en->name,
                                 (uint16_t)en->l1_programs, en->plan->ntmaps,
                                 lw_code_tmaps(ar, en->plan),
                                 (en->persistent ? TLB_VARIANT_PERSISTENT : 0) |
                                     (en->ws ? TLB_VARIANT_WARPSPEC : 0)};
    }
    return vs;
}
