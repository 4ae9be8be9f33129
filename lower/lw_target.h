/* lw_target.h — the NVPTX target, shared by target.c and lower.c. */
#ifndef TILE_LW_TARGET_H
#define TILE_LW_TARGET_H

#include <llvm-c/TargetMachine.h>

#define LW_TRIPLE "nvptx64-nvidia-cuda"

/* LLVM's NVPTX target, registered on first use; NULL if absent. */
LLVMTargetRef lw_nvptx_target(void);

#endif
