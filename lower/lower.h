/*
 * lower.h — the code generator's public face: tile IR to LLVM IR to PTX.
 *
 * For now this stage holds what the driver needs before any code is
 * generated: the LLVM it was built with and the GPU architectures it can
 * target. Lowering of the tile IR arrives with the code-generation issue.
 */
#ifndef TILE_LOWER_H
#define TILE_LOWER_H

#include <stddef.h>

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

#endif
