/*
 * compile.h — the one function that takes Tile source through every stage
 * of the GPU path: parse, sema (once), per-variant planning and LLVM
 * emission, ptxas, the bundle. tilec, the examples' in-process compiler
 * and the tests call it, so that there is one pipeline, not a copy per
 * caller.
 */
#ifndef TILE_COMPILE_H
#define TILE_COMPILE_H

#include "lower/lower.h"
#include "sema/sema.h"

enum {
    TC_LLVM = 1,      /* the LLVM IR text (TcOutput.lw.llvm) */
    TC_CUBIN = 2,     /* a cubin from ptxas (an error without one that
                         runs: ask lw_ptxas_path first where it is optional) */
    TC_BUNDLE = 4,    /* the bundle bytes: PTX, and the cubin with TC_CUBIN */
    TC_STATS = 8,     /* ptxas's resource report per entry */
};

/* TcOptions.slot_sync: the default (last), a slot's mbarrier that each
 * warp arrives on once done with it (LyPipe.release; experimental:
 * slower than the barriers on an H100 but at D = 128 attention,
 * docs/PERF.md session 38), a counter a slot whose last warp refills it
 * (LY_RELEASE_LAST; the default since session 45), or a CTA barrier an
 * iteration (the default before). */
enum { TC_SLOT_DEFAULT, TC_SLOT_MBARRIER, TC_SLOT_LAST, TC_SLOT_CTA };

typedef struct TcOptions {
    const char *arch;                  /* "sm_90a", ... */
    int opt_level, debug, fp_contract_off;
    int no_tma;                        /* rings stay on cp.async (tilec
                                          --no-tma); zero: TMA where it can */
    int persistent;                    /* tilec --persistent: programs walk
                                          the tiles (plan/persist.c) */
    int early_products;                /* tilec --early-products: a loop's
                                          first product issued one
                                          iteration ahead where it can */
    int slot_sync;                     /* tilec --slot-sync: how a TMA
                                          loop frees its slots (TC_SLOT_*) */
    int split_loads;                   /* tilec --split-loads: rows
                                          realigned beside loads of other
                                          offsets, those loads split */
    int pingpong;                      /* tilec --pingpong: warpgroups
                                          take turns at a loop's products */
    int tma_store;                     /* tilec --tma-store: stores of
                                          boxes written by TMA */
    int warpspec;                      /* tilec --warp-specialize: a
                                          producer warpgroup issues a
                                          TMA loop's copies */
    SmOptions sema;                    /* defines, -I, stdlib, -g */
    const char *producer;              /* recorded in the bundle */
    unsigned want;                     /* TC_* */
} TcOptions;

typedef struct TcOutput {
    IrModule *mod;                     /* sema's; the configurations that fit */
    LwOutput lw;                       /* PTX (always), entries, LLVM */
    char *cubin;                       /* TC_CUBIN, in the arena */
    size_t cubin_len;
    LwStats *stats;                    /* TC_STATS */
    int nstats;
    void *bundle;                      /* TC_BUNDLE: malloc'd, caller frees */
    size_t bundle_len;
    int nfiles;                        /* every source file read, the main */
    const char *const *files;          /* file first (IrModule.files) */
} TcOutput;

/* Parses `text` (registered in dg as `file`) and compiles it as `o` asks.
 * Returns 0, or -1 after reporting errors through dg. `out` is zeroed
 * first; out->files is set once sema has succeeded. */
int tc_compile(Arena *ar, Diag *dg, uint32_t file, const char *text, size_t len,
               const TcOptions *o, TcOutput *out);

/* Sema alone (for --emit=ir, checks and the interpreter): parse and check
 * `text`; NULL after errors. */
IrModule *tc_check(Arena *ar, Diag *dg, uint32_t file, const char *text, size_t len,
                   const SmOptions *so);

#endif
