/*
 * target.c — which GPUs can we compile for?
 *
 * Tile targets NVIDIA GPUs from Ampere (sm_80) on: its code generator relies
 * on mma.sync m16n8k16, cp.async and ldmatrix, which older parts lack. The
 * table below is that policy: each architecture with the PTX ISA version
 * that introduced it. Whether the LLVM we are linked with can actually
 * generate code for one is a separate question, answered by asking LLVM.
 *
 * The LLVM C API has no "is this CPU name valid" query: creating a target
 * machine with an unknown CPU succeeds, prints a warning on stderr and
 * falls back to a generic subtarget. What does tell them apart is the PTX
 * it emits: every processor LLVM knows implies the PTX ISA version that
 * introduced it, and the `.version` line of an empty module shows it (an
 * unknown CPU gets PTX 3.2, the back end's floor). So a name is supported
 * when it is in the table (names outside it never reach LLVM, so never
 * produce its warning) and LLVM emits at least the table's PTX version for
 * it: an LLVM too old to know an architecture is caught here rather than
 * producing PTX that ptxas rejects.
 */
#include "lower/lower.h"
#include "plan/layout.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "lower/lw_target.h"

typedef struct {
    const char *name;
    int ptx;       /* PTX ISA version that introduced it, times ten */
    int smem_kib;  /* shared memory one program may opt in to (CUDA guide,
                      "Technical Specifications per Compute Capability");
                      an SM has 1 KiB more */
    int warps;     /* resident warps per SM (same table) */
    int programs;  /* resident programs (thread blocks) per SM */
} LwArch;

static const LwArch lw_archs[] = {
    {"sm_80", 70, 163, 64, 32},  {"sm_86", 71, 99, 48, 16},   {"sm_87", 74, 163, 48, 16},
    {"sm_89", 78, 99, 48, 24},   {"sm_90", 78, 227, 64, 32},  {"sm_90a", 80, 227, 64, 32},
    {"sm_100", 86, 227, 64, 32}, {"sm_100a", 86, 227, 64, 32}, {"sm_120", 87, 99, 48, 32},
    {"sm_120a", 87, 99, 48, 32},
};

size_t lw_arch_count(void) { return sizeof lw_archs / sizeof lw_archs[0]; }

const char *lw_arch_name(size_t i) {
    return i < lw_arch_count() ? lw_archs[i].name : NULL;
}

int lw_arch_wgmma(const char *arch) { return arch && strcmp(arch, "sm_90a") == 0; }

int lw_assign_flags(const char *arch, int split_loads) {
    return (lw_arch_wgmma(arch) ? LY_ASSIGN_WGMMA : 0) | (split_loads ? LY_ASSIGN_SPLIT : 0);
}

int lw_arch_fp8_cvt(const char *arch) {
    for (size_t i = 0; arch && i < lw_arch_count(); i++)
        if (strcmp(arch, lw_archs[i].name) == 0) return atoi(arch + 3) >= 89;
    return 0;
}

/* The version text is written once, whichever thread asks first. */
static pthread_once_t lw_version_once = PTHREAD_ONCE_INIT;
static char lw_version_text[32];

static void lw_format_version(void) {
    unsigned major, minor, patch;
    LLVMGetVersion(&major, &minor, &patch);
    snprintf(lw_version_text, sizeof lw_version_text, "%u.%u.%u", major,
             minor, patch);
}

const char *lw_llvm_version(void) {
    pthread_once(&lw_version_once, lw_format_version);
    return lw_version_text;
}

/* Registering a target with LLVM is idempotent. */
LLVMTargetRef lw_nvptx_target(void) {
    LLVMTargetRef target;
    char *error = NULL;
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    if (LLVMGetTargetFromTriple(LW_TRIPLE, &target, &error)) {
        LLVMDisposeMessage(error);
        return NULL;
    }
    return target;
}

/* The PTX ISA version (times ten) that LLVM's target machine for `cpu`
 * writes in the `.version` line of an empty module; 0 on failure. */
static int lw_emitted_ptx_version(LLVMTargetRef target, const char *cpu) {
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
        target, LW_TRIPLE, cpu, "", LLVMCodeGenLevelDefault,
        LLVMRelocDefault, LLVMCodeModelDefault);
    if (!tm)
        return 0;
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("probe", ctx);
    LLVMSetTarget(mod, LW_TRIPLE);
    LLVMMemoryBufferRef ptx = NULL;
    char *error = NULL;
    int version = 0;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMAssemblyFile, &error,
                                            &ptx)) {
        LLVMDisposeMessage(error);
    } else {
        size_t len = LLVMGetBufferSize(ptx);
        char *text = malloc(len + 1);
        if (text) {
            memcpy(text, LLVMGetBufferStart(ptx), len);
            text[len] = '\0';
            const char *line = strstr(text, "\n.version ");
            unsigned major, minor;
            if (line && sscanf(line, "\n.version %u.%u", &major, &minor) == 2)
                version = (int)(major * 10 + minor);
            free(text);
        }
        LLVMDisposeMemoryBuffer(ptx);
    }
    LLVMDisposeModule(mod);
    LLVMContextDispose(ctx);
    LLVMDisposeTargetMachine(tm);
    return version;
}

int lw_arch_supported(const char *arch) {
    if (!arch)
        return 0;
    for (size_t i = 0; i < lw_arch_count(); i++) {
        if (strcmp(arch, lw_archs[i].name) != 0)
            continue;
        LLVMTargetRef target = lw_nvptx_target();
        return target && lw_emitted_ptx_version(target, arch) >= lw_archs[i].ptx;
    }
    return 0;
}

int64_t lw_arch_max_shared(const char *arch) {
    for (size_t i = 0; arch && i < lw_arch_count(); i++)
        if (strcmp(arch, lw_archs[i].name) == 0) return 1024 * (int64_t)lw_archs[i].smem_kib;
    return LW_STATIC_SHARED_MAX;
}

LwSm lw_arch_sm(const char *arch) {
    if (!arch) arch = "sm_90";   /* the default target (LwOptions.arch) */
    for (size_t i = 0; i < lw_arch_count(); i++)
        if (strcmp(arch, lw_archs[i].name) == 0)
            return (LwSm){65536, lw_archs[i].warps, lw_archs[i].programs,
                          1024 * ((int64_t)lw_archs[i].smem_kib + 1)};
    return (LwSm){65536, 48, 16, 100 * 1024};   /* the least of the table */
}

int lw_arch_ptx_version(const char *arch) {
    if (!arch)
        return 0;
    for (size_t i = 0; i < lw_arch_count(); i++)
        if (strcmp(arch, lw_archs[i].name) == 0)
            return lw_archs[i].ptx < 80 ? 80 : lw_archs[i].ptx;
    return 0;
}
