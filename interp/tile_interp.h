/*
 * tile_interp.h — compile Tile source and run its kernels on the host.
 *
 * This is the reference interpreter's public C API: it backs the examples'
 * no-GPU mode, the tests' numerics and the Python binding's interpret=True.
 * A kernel runs program by program over its grid, on host buffers; every
 * buffer argument is registered with its size, and an access outside it
 * stops the run with a located error naming the argument, the element and
 * the program.
 *
 * Strings returned through `char **` out-parameters are malloc'd; free them
 * with free(). Nothing here keeps global state: programs are independent
 * and may be used from several threads (one run per program at a time).
 */
#ifndef TILE_INTERP_H
#define TILE_INTERP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TileProgram TileProgram;

typedef struct TileCompileOptions {
    const char *const *defines;      /* "NAME=VALUE", as tilec -D */
    int ndefines;
    const char *const *include_dirs; /* as tilec -I */
    int ninclude_dirs;
    const char *stdlib_dir;          /* NULL: $TILE_STDLIB, else the stdlib
                                        beside libtilec (build tree or
                                        installed), else the configured
                                        install directory */
    int debug;                       /* keep device_assert, as tilec -g */
} TileCompileOptions;

/* Compiles a file (or, with tile_compile_source, text named `name` in
 * diagnostics). Returns NULL on errors; *diagnostics, when non-NULL, gets
 * the messages (warnings too, on success) or NULL when there were none. */
TileProgram *tile_compile_file(const char *path, const TileCompileOptions *opt,
                               char **diagnostics);
TileProgram *tile_compile_source(const char *name, const char *src,
                                 size_t len, const TileCompileOptions *opt,
                                 char **diagnostics);
void tile_program_free(TileProgram *p);

/* The program's kernels: their number, and the name of kernel i (in
 * source order; NULL when i is out of range). */
int tile_kernel_count(const TileProgram *p);
const char *tile_kernel_name(const TileProgram *p, int i);
/* The configurations of `kernel`, one a line in the form the `config` run
 * option takes ("BLOCK=1024,warps=4,stages=3\n..."), malloc'd; NULL when
 * there is no such kernel. */
char *tile_kernel_configs(const TileProgram *p, const char *kernel);

/* The runtime parameters of `kernel`, one a line, in order:
 *   NAME TYPE[ stored]
 * TYPE as written in source once compile-time types are substituted
 * ("*f32", "*f16", "i32", "f32", "bool"); " stored" marks a pointer the
 * kernel stores or atomically updates through. The configurations of a
 * kernel share one signature. malloc'd; NULL when there is no such
 * kernel. */
char *tile_kernel_params(const TileProgram *p, const char *kernel);
/* 1 when `kernel` has a grid(...) (runs may leave TileRunOptions.grid
 * zero), 0 when the caller must pass a grid, -1 when there is no such
 * kernel. */
int tile_kernel_has_grid(const TileProgram *p, const char *kernel);

typedef enum { TILE_ARG_BUFFER, TILE_ARG_INT, TILE_ARG_FLOAT } TileArgKind;

typedef struct TileArg {
    TileArgKind kind;
    void *data;       /* TILE_ARG_BUFFER: start of the buffer */
    size_t bytes;     /* TILE_ARG_BUFFER: its size */
    int64_t i;        /* TILE_ARG_INT */
    double f;         /* TILE_ARG_FLOAT */
} TileArg;

static inline TileArg tile_arg_buffer(void *data, size_t bytes) {
    TileArg a = {TILE_ARG_BUFFER, data, bytes, 0, 0.0};
    return a;
}
static inline TileArg tile_arg_int(int64_t v) {
    TileArg a = {TILE_ARG_INT, 0, 0, v, 0.0};
    return a;
}
static inline TileArg tile_arg_float(double v) {
    TileArg a = {TILE_ARG_FLOAT, 0, 0, 0, v};
    return a;
}

typedef struct TileRunOptions {
    const char *config;  /* "BLOCK=1024,warps=4": run the first of the
                            configurations agreeing with it whose @require
                            holds for these arguments; NULL or "": the
                            first of all. libtile's rules and messages
                            (tile_kernel_select, the same code) */
    unsigned grid[3];    /* all zero: evaluate the kernel's grid();
                            otherwise a 0 in y or z counts as 1 */
    unsigned long long max_steps;
                         /* stop with an error after this many steps (an
                            op executed over a whole tile, or a loop
                            iteration, counted over all programs); 0: the
                            value of $TILE_INTERP_MAX_STEPS when set, else
                            no limit */
    const volatile sig_atomic_t *cancel;
                         /* when non-NULL, read before every step: once
                            nonzero the run stops with the error "run
                            interrupted". Set it from another thread or a
                            signal handler (a SIGINT handler the caller
                            installs; the library installs none) */
} TileRunOptions;

/* Runs `kernel` over its grid. Returns 0, or -1 with *error (when non-NULL)
 * set to a message such as
 *   k.tile:7:5: error: out-of-bounds load of 'x': element 1024 of 1024,
 *   program (1, 0, 0)
 * followed by the source line and a caret. Errors without a source
 * position (arguments, configuration, grid) are one line, e.g.
 *   kernel 'vadd': argument 2 ('y') must be a buffer, got an integer
 * An integer may be passed for a float parameter. device_print writes to
 * stdout. Out of memory is an error like any other (never an abort). The
 * memory a run takes follows its largest set of live values (values dead
 * by then share storage), plus the caller's buffers. Initialize the
 * options with designated initializers or {0}: fields may be added at the
 * end. */
int tile_interp_run(TileProgram *p, const char *kernel, const TileArg *args,
                    int nargs, const TileRunOptions *opt, char **error);

#ifdef __cplusplus
}
#endif
#endif
