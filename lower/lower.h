/*
 * lower.h — the code generator's public face: tile IR + layouts to LLVM IR
 * to NVPTX PTX (and, through ptxas when present, cubin and a resource
 * report).
 *
 * One call compiles a whole module: every kernel configuration, each in
 * its specialization variants (plan/guard.c), into ONE
 * LLVM module and so one PTX text in which each (configuration, variant)
 * is its own `.entry`. Entry names are
 *
 *     KERNEL__cCONFIG__VARIANT        e.g. softmax__c3__a16, vadd__c0__g
 *
 * with CONFIG the configuration's index in the kernel's list
 * (IrKernel.config_index) and VARIANT `g` (generic: assumes nothing),
 * `a16` (planned with every pointer parameter 16-byte aligned and every
 * integer parameter without @nospecialize divisible by 16, keeping the
 * facts its plan needs) or one of plan/guard.c's others (u1..u4, l16,
 * p16).
 *
 * Parameters of an entry are the kernel's runtime parameters in order:
 * pointers as global pointers (8 bytes), integers and floats at their
 * width, bool as an 8-bit integer (0 or 1). Launch with 32 * warps
 * threads in x and LwEntry.dyn_shared_bytes of dynamic shared memory.
 */
#ifndef TILE_LOWER_H
#define TILE_LOWER_H

#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "sema/ir.h"

/* "22.1.8": the version of the LLVM linked in (LLVMGetVersion), in a
 * static buffer. */
const char *lw_llvm_version(void);

/* Non-zero when `arch` ("sm_90a") is a GPU architecture Tile targets and
 * the linked LLVM's NVPTX back end knows it: a target machine for
 * nvptx64-nvidia-cuda with that CPU is created and emits the PTX ISA
 * version the architecture needs. Zero for anything else (sm_99, sm_70,
 * "", NULL). */
int lw_arch_supported(const char *arch);

/* The architectures Tile targets, for help texts and diagnostics:
 * lw_arch_name(0 .. lw_arch_count()-1), oldest first. */
size_t lw_arch_count(void);
const char *lw_arch_name(size_t i);

/* The PTX ISA version (times ten) Tile emits for `arch`: the version
 * that introduced the architecture, at least 8.0. 0 when unknown. */
int lw_arch_ptx_version(const char *arch);

/* Non-zero when `arch` has warpgroup MMA (wgmma.mma_async): sm_90a only
 * (the "a" targets' features run on exactly that GPU; sm_100 has its own
 * tensor-core instructions). */
int lw_arch_wgmma(const char *arch);

/* The layout assignment's flags (plan/layout.h LY_ASSIGN_*) for `arch`
 * and tilec --split-loads: what lower.c's plan_kernel and tilec's
 * --emit=ir --variant= both pass to it. */
int lw_assign_flags(const char *arch, int split_loads);

/* Non-zero when `arch` has the FP8 conversions (cvt ... e4m3x2/e5m2x2,
 * PTX 7.8): sm_89 and later. */
int lw_arch_fp8_cvt(const char *arch);

/* Static shared memory an entry may declare (48 KiB); past it the scratch
 * is dynamic shared memory, which the launch must request and pass. */
#define LW_STATIC_SHARED_MAX (48 * 1024)

/* The most shared memory a program may use on arch (after opting in with
 * CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES): 227 KiB on sm_90. */
int64_t lw_arch_max_shared(const char *arch);

/* What one SM of arch holds at once (the CUDA guide's table): registers
 * (32-bit), warps, programs, and shared memory in bytes. */
typedef struct LwSm {
    int registers, warps, programs;
    int64_t shared;
} LwSm;
LwSm lw_arch_sm(const char *arch);

/* Programs of `threads` threads, `regs` registers each and `shared` bytes
 * of shared memory that fit one SM of `sm` at once (regcap.c): registers
 * go 256 to a warp at a time (8 a thread), and each program also holds
 * 1 KiB of shared memory for the system. */
int lw_sm_programs(LwSm sm, int regs, int threads, int64_t shared);

/* The most registers a thread may have (a multiple of 8, at most 255) for
 * `programs` such programs to fit one SM; 0 when no count does. */
int lw_register_cap(LwSm sm, int threads, int64_t shared, int programs);

/* `ptx` with `.maxnreg n` given to entry `name` (after its `.reqntid`
 * line, replacing a `.maxnreg` already there), or NULL when the entry is
 * not found. */
char *lw_ptx_set_maxnreg(Arena *ar, const char *ptx, const char *name, int n);

/* ------------------------------------------------------------ compiling */

typedef struct LwOptions {
    const char *arch;        /* "sm_90" (default when NULL) */
    int opt_level;           /* 0..3 */
    int debug;               /* -g: line info (.loc), device_assert */
    const char *libdevice;   /* libdevice.10.bc; NULL: the configured one */
    int want_llvm;           /* also return the optimized LLVM IR text */
    int tma;                 /* rings of wgmma loops filled by TMA copies
                                where they can be (plan/tma.c); tc_compile
                                sets it unless --no-tma */
    int persistent;          /* tilec --persistent: kernels whose programs
                                compute a tile each walk the tiles instead
                                where plan/persist.c takes them */
    int early;               /* tilec --early-products: a TMA loop's first
                                wgmma product issued one iteration ahead
                                where it can (plan LY_PLAN_EARLY) */
    int split_loads;         /* tilec --split-loads: rows realigned beside
                                loads of other offsets, those loads split
                                (LY_ASSIGN_SPLIT, plan/realign.c) */
    int pingpong;            /* tilec --pingpong: the warpgroups of a loop
                                of wgmma products take turns issuing
                                them (plan LY_PLAN_PINGPONG) */
    int tma_store;           /* tilec --tma-store: stores of a box of a
                                tensor written by TMA from shared memory
                                (plan LY_PLAN_TMA_STORE) */
    int cta_sync;            /* tilec --slot-sync=cta: a TMA loop's slots freed
                                by a CTA barrier an iteration (plan
                                LY_PLAN_CTA_SYNC) */
    int mbar_sync;           /* tilec --slot-sync=mbarrier: released through
                                an mbarrier a slot that thread 0 polls
                                (plan LY_PLAN_MBAR_SYNC); neither: counted,
                                the last warp refilling (the default) */
    int warpspec;            /* tilec --warp-specialize: a producer
                                warpgroup issues a TMA loop's copies where
                                lower/warpspec.c takes the kernel */
    int fp_contract_off;     /* --fp-contract=off: never fuse a float mul
                                into an add (default: fuse, as Triton) */
} LwOptions;

typedef struct LwEntry {
    const char *name;        /* softmax__c3__a16 */
    const IrKernel *kernel;  /* kernel and configuration: the variant's
                                planned copy */
    int config;              /* the configuration's index in the module */
    const struct LyVariant *variant;  /* its facts and why each is needed
                                         (plan/layout.h) */
    const struct LyPlan *plan;  /* its lowering plan (plan/layout.h) */
    int warps;               /* threads per program / 32 */
    int64_t shared_bytes;    /* shared memory the entry uses */
    int64_t dyn_shared_bytes;  /* of which dynamic, passed at launch: all of
                                  it past LW_STATIC_SHARED_MAX, else 0 */
    int memory_pass;         /* no product and no cp.async ring: its speed
                                follows the programs in flight (regcap.c) */
    int reg_cap;             /* .maxnreg given after ptxas's first report
                                (regcap.c); 0: none */
    int reg_natural;         /* then the registers ptxas had chosen */
    const char *not_persistent;  /* --persistent asked and refused: why
                                    (NULL: persistent, or not asked) */
    int l1_programs;         /* programs per SM to carve shared memory out
                                for, the rest staying L1 (the bundle's
                                TlbVariant.l1_programs; kernel.c,
                                lw_l1_programs); 0: as many as fit */
    int persistent;          /* its programs walk the grid's tiles
                                (plan/persist.c): launched as many as fit
                                at once (TlbVariant.flags) */
    int ws;                  /* a producer warpgroup runs beside its warps
                                (lower/warpspec.c; TlbVariant.flags) */
    int unpipelined;         /* loops with loads marked for cp.async that
                                were lowered without pipelining (their
                                rings do not fit, or a copy would cross a
                                swizzle unit) */
    Loc unpipelined_loop;    /* the first such loop */
    int64_t unpipelined_need;  /* what its rings and the scratch bound would
                                  have taken; 0 when it did not fail for room */
} LwEntry;

typedef struct LwOutput {
    char *ptx;               /* NUL-terminated, in the arena */
    size_t ptx_len;
    char *llvm;              /* with want_llvm */
    int nentries;
    LwEntry *entries;        /* kernel-major, then configuration, then
                                variant (most specialized first) */
} LwOutput;

/* Lowers every kernel configuration of m: plans its specialization
 * variants (plan/guard.c: each on its own copy of the kernel, m itself
 * unchanged) and lowers each to one entry.
 *
 * The shared-memory budget, one rule for every caller: a configuration
 * whose entry (any variant) needs more shared memory, static and
 * dynamic together, than lw_arch_max_shared(arch) — known from its plan,
 * before it is lowered — is skipped with a note naming it, never lowered,
 * and removed from m (so that nothing built from m and `out`, a bundle
 * included, knows it); a kernel none of whose configurations fits is an
 * error. Returns 0, or -1 after reporting errors. */
int lw_compile(Arena *ar, Diag *dg, IrModule *m, const LwOptions *opt, LwOutput *out);

/* The bundle writer's view of lw_compile's output (bundle/from_ir.h): one
 * TlbCodeVariant per entry, naming its configuration by its index in the
 * module, its guard and its dynamic shared memory. In arena memory;
 * shared by tilec and every program that builds bundles in-process. */
struct TlbCodeVariant;
struct TlbCodeVariant *lw_code_variants(Arena *ar, const LwOutput *res);

/* ---------------------------------------------------- ptxas: cubin, stats */

typedef struct LwStats {
    const char *entry;
    int registers;
    int64_t spill_stores, spill_loads;  /* bytes */
    int64_t stack, shared;              /* bytes */
} LwStats;

/* The ptxas that lw_ptxas runs, or NULL when none can run here: $TILE_PTXAS
 * when set (alone), else the configured toolkit's, else `ptxas` on $PATH. */
const char *lw_ptxas_path(Arena *ar);

/* Assembles `ptx` for `arch` with ptxas. On success returns 0 and sets
 * the cubin (and its length) when cubin is not NULL, and the stats
 * (one per entry, in the arena) when stats is not NULL. On failure reports
 * ptxas's messages through dg and returns -1. */
int lw_ptxas(Arena *ar, Diag *dg, const char *ptx, const char *arch,
             char **cubin, size_t *cubin_len, LwStats **stats, int *nstats);

/* After ptxas's report: gives each less specialized entry of a memory
 * pass that fits fewer programs per SM than its configuration's first
 * entry the register cap that fits as many (regcap.c), runs ptxas again
 * and drops the caps of entries that then spill. Updates lw's PTX and
 * entries, the cubin (when not NULL) and the stats. A run with caps that
 * fails (quietly) leaves the first run's results, uncapped. */
void lw_cap_registers(Arena *ar, LwOutput *lw, const char *arch, char **cubin,
                      size_t *cubin_len, LwStats **stats, int *nstats);

/* ptxas for lw's module, with the register caps when `caps` (-O2, -O3):
 * decided on a module of the memory passes' entries alone where other
 * entries exist, then the whole module assembled once, capped
 * (regcap.c). Returns 0, or -1 with ptxas's messages through dg. */
int lw_assemble(Arena *ar, Diag *dg, LwOutput *lw, const char *arch, int caps,
                char **cubin, size_t *cubin_len, LwStats **stats, int *nstats);

/* ptx with only the entries named (n of them); what lies outside entries
 * (header, globals, functions, declarations) is kept. NULL when out of
 * memory. */
char *lw_ptx_only_entries(Arena *ar, const char *ptx, const char *const *names, int n);

#endif
