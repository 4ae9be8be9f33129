/*
 * warpsim.h — runs kernels that tilec lowered (their LLVM IR rebuilt for
 * the host by x86.py) on the CPU, one pthread per GPU thread, so that the
 * code generator's cross-thread machinery — warp shuffles, barriers, the
 * shared scratch — is checked without a GPU. The interpreter cannot do
 * that: it never sees the lowering.
 *
 * The simulation follows the PTX ISA where it matters here: shfl.sync
 * (up, idx, bfly) computes its source lane from `b` and the packed
 * clamp/segment mask `c` exactly as the ISA's pseudo-code does, and a lane
 * whose source is out of range reads its own value; each shuffle is a
 * rendezvous of the warp's 32 threads (write, wait, read, wait), and
 * bar.sync one of all the program's threads. Programs of a grid run one
 * after another. Anything relying on lock-step execution without a
 * shuffle or a barrier would show up as a race, not pass by luck.
 */
#ifndef WARPSIM_H
#define WARPSIM_H

#include <stddef.h>
#include <stdint.h>

/* Runs body(ctx) on `threads` threads (a multiple of 32, at most 1024)
 * for each of `grid` programs. */
void ws_launch(int threads, int grid, void (*body)(void *), void *ctx);

/* Comparisons: print one line ("ok" or "FAIL", `what`, and the first
 * mismatches) and count failures. Floats: |got - want| <= tol (1 + |want|). */
void ws_check_f(const char *what, const float *got, const double *want, int n,
                double tol);
void ws_check_i(const char *what, const int64_t *got, const int64_t *want, int n);
int ws_failures(void);

/* 16-byte aligned buffer of `bytes`, poisoned (0xa5 bytes). */
void *ws_buffer(size_t bytes);
/* Deterministic inputs: floats in [-2, 2), integers in [lo, hi]. */
double ws_frand(void);
int ws_irand(int lo, int hi);

#endif
