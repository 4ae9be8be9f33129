/*
 * softmax_main.c — the quick-start demo: compile examples/softmax.tile, run
 * it on random input, check every element against a C reference.
 *
 *   examples/softmax_demo [path/to/softmax.tile]
 *
 * It shows the whole host-side flow a program using Tile follows:
 * tile_compile_file, buffers as TileArgs, one launch per problem with the
 * grid and the configuration chosen by the kernel itself (grid(rows) and
 * @require(BLOCK >= cols)), then a check. There is no GPU runtime yet, so
 * the launch goes to the reference interpreter (tile_interp_run); the GPU
 * path arrives with the code-generation issue.
 *
 * Where the kernel is found, first match wins: the argument; the source
 * tree this was built from (TILE_SRCDIR); the installed examples
 * (TILE_EXAMPLES_DIR). The stdlib comes from the source tree when it is
 * there, else from $TILE_STDLIB or the installed one (the API's default).
 * Exit status: 0 when every element is within tolerance, 1 otherwise.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "examples/ref/ref.h"
#include "interp/tile_interp.h"

/* A row of n positive terms summed in f32 errs by about sqrt(n) * 2^-24;
 * allow ten times that plus a floor for exp and the division. */
static double tolerance(long cols) {
    return 5e-6 + 10 * 0x1p-24 * sqrt((double)cols);
}

static uint64_t next(uint64_t *s) {      /* splitmix64 */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static const char *find_kernel(int argc, char **argv) {
    if (argc > 1)
        return argv[1];
    static const char *const candidates[] = {
        TILE_SRCDIR "/examples/softmax.tile",
        TILE_EXAMPLES_DIR "/softmax.tile",
    };
    for (int i = 0; i < 2; i++)
        if (access(candidates[i], R_OK) == 0)
            return candidates[i];
    return candidates[1];
}

/* Runs softmax on rows x cols random values; returns 1 when it passes. */
static int demo(TileProgram *prog, long rows, long cols, uint64_t *seed) {
    long n = rows * cols;
    float *x = malloc((size_t)n * sizeof *x), *out = malloc((size_t)n * sizeof *out);
    double *xd = malloc((size_t)n * sizeof *xd), *ref = malloc((size_t)n * sizeof *ref);
    for (long i = 0; i < n; i++) {
        /* uniform in [-8, 8): exp spans about seven orders of magnitude */
        x[i] = (float)((double)(next(seed) >> 11) * 0x1p-53 * 16 - 8);
        xd[i] = x[i];
        out[i] = NAN;                    /* poison: every element must be
                                            written */
    }
    TileArg args[] = {
        tile_arg_buffer(out, (size_t)n * sizeof *out),
        tile_arg_buffer(x, (size_t)n * sizeof *x),
        tile_arg_int(rows), tile_arg_int(cols), tile_arg_int(cols),
    };
    char *err = NULL;
    int ok = 0;
    if (tile_interp_run(prog, "softmax", args, 5, NULL, &err) != 0) {
        fprintf(stderr, "softmax_demo: %s\n", err ? err : "run failed");
    } else {
        ref_softmax(ref, xd, rows, cols, cols);
        double worst = 0, tol = tolerance(cols);
        for (long i = 0; i < n; i++) {
            double rel = fabs(out[i] - ref[i]) / ref[i];
            if (!(rel <= worst))         /* NaN counts as worst */
                worst = isnan(rel) ? INFINITY : rel;
        }
        ok = worst <= tol;
        printf("  softmax %5ld x %-5ld  max relative error %.2e "
               "(tolerance %.1e)  %s\n", rows, cols, worst, tol,
               ok ? "PASS" : "FAIL");
    }
    free(err);
    free(x); free(out); free(xd); free(ref);
    return ok;
}

int main(int argc, char **argv) {
    const char *path = find_kernel(argc, argv);
    const char *srcstdlib = TILE_SRCDIR "/stdlib";
    TileCompileOptions opt = {0};
    opt.stdlib_dir = access(srcstdlib, R_OK) == 0 ? srcstdlib : NULL;
    char *diags = NULL;
    TileProgram *prog = tile_compile_file(path, &opt, &diags);
    if (diags) {
        fputs(diags, stderr);
        free(diags);
    }
    if (!prog) {
        fprintf(stderr, "softmax_demo: %s did not compile\n", path);
        return 1;
    }
    uint64_t seed = (uint64_t)time(NULL);
    printf("softmax demo: %s (random seed %llu)\n", path,
           (unsigned long long)seed);
    printf("no GPU runtime yet: running in the reference interpreter\n");
    int ok = demo(prog, 64, 1000, &seed);
    ok &= demo(prog, 8, 5000, &seed);
    tile_program_free(prog);
    printf("%s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
