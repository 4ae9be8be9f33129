/*
 * compile.c — tc_compile: Tile source to PTX, cubin and bundle, in one
 * place.
 *
 * The order: parse; sema once (sm_compile), whose module lists the files
 * it read; lw_compile, which plans the specialization variants of every
 * configuration (each on its own copy of the kernel: copying is linear
 * where a second sema run re-inlined and re-unrolled everything) and
 * emits them (math functions linked from libdevice: libdevice_path);
 * ptxas when a cubin or statistics are wanted, at -O2 and -O3 with the
 * register caps its report calls for (lw_assemble, lower/regcap.c); the bundle
 * from sema's IR and every entry. Errors stop at the stage
 * that found them; everything lives in the caller's arena except the
 * bundle bytes (malloc'd, as tlb_write makes them).
 */
#include "config.h"

#include "driver/compile.h"

#include "bundle/bundle.h"
#include "bundle/from_ir.h"
#include "parser/parser.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

IrModule *tc_check(Arena *ar, Diag *dg, uint32_t file, const char *text, size_t len,
                   const SmOptions *so) {
    AstFile *ast = ps_parse(ar, dg, file, text, len);
    if (dg_errors(dg)) return NULL;
    if (ast->nitems == 0) {
        dg_error(dg, (Loc){file, 0, 0, 0, 0}, "no items in file");
        return NULL;
    }
    return sm_compile(ar, dg, ast, so);
}

/* The bundle: sema's IR (metadata) and every entry of the PTX, with the
 * cubin when there is one. */
static int make_bundle(Arena *ar, Diag *dg, const TcOptions *o, TcOutput *out) {
    struct TlbCodeVariant *vs = lw_code_variants(ar, &out->lw);
    TlbCubin cb = {o->arch, out->cubin_len, (const uint8_t *)out->cubin};
    TlbCode code = {o->producer ? o->producer : PACKAGE_NAME "c " PACKAGE_VERSION,
                    o->arch, out->lw.ptx, out->lw.nentries, vs, out->cubin ? 1 : 0, &cb};
    TlbBundle b;
    char err[512];
    if (tlb_from_ir(ar, out->mod, &code, &b, err, sizeof err) ||
        tlb_write(&b, &out->bundle, &out->bundle_len, err, sizeof err)) {
        dg_plain(dg, DG_ERROR, "cannot write the bundle: %s", err);
        return -1;
    }
    return 0;
}

/* libdevice, for the math functions: $TILE_LIBDEVICE, else
 * libdevice.10.bc in the directory that holds the stdlib (share/tile/ of
 * the wheel, which carries it), else NULL: the configured one (lower.c). */
static const char *libdevice_path(Arena *ar, const char *stdlib_dir) {
    const char *env = getenv("TILE_LIBDEVICE");
    if (env && *env) return env;
    if (!stdlib_dir) return NULL;
    const char *p = ar_printf(ar, "%s/../libdevice.10.bc", stdlib_dir);
    return access(p, R_OK) == 0 ? p : NULL;
}

int tc_compile(Arena *ar, Diag *dg, uint32_t file, const char *text, size_t len,
               const TcOptions *o, TcOutput *out) {
    memset(out, 0, sizeof *out);
    IrModule *m = tc_check(ar, dg, file, text, len, &o->sema);
    if (!m) return -1;
    out->nfiles = m->nfiles;
    out->files = m->files;
    out->mod = m;
    LwOptions lo = {.arch = o->arch, .opt_level = o->opt_level, .debug = o->debug,
                    .libdevice = libdevice_path(ar, o->sema.stdlib_dir),
                    .want_llvm = (o->want & TC_LLVM) != 0,
                    .fp_contract_off = o->fp_contract_off, .tma = !o->no_tma,
                    .early = o->early_products, .persistent = o->persistent,
                    .cta_sync = o->slot_sync == TC_SLOT_CTA,
                    .mbar_sync = o->slot_sync == TC_SLOT_MBARRIER,
                    .pingpong = o->pingpong, .tma_store = o->tma_store,
                    .split_loads = o->split_loads, .warpspec = o->warpspec};
    if (lw_compile(ar, dg, m, &lo, &out->lw) != 0) return -1;
    int cubin = (o->want & TC_CUBIN) != 0;
    if (cubin || (o->want & TC_STATS)) {
        /* register caps (a second ptxas run): not at -O0/-O1 */
        if (lw_assemble(ar, dg, &out->lw, o->arch, o->opt_level >= 2,
                        cubin ? &out->cubin : NULL, &out->cubin_len, &out->stats,
                        &out->nstats) != 0)
            return -1;
    }
    if ((o->want & TC_BUNDLE) && make_bundle(ar, dg, o, out) != 0) return -1;
    return 0;
}
