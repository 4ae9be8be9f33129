/*
 * base.h — what every stage of tilec shares: arenas, growable arrays,
 * source locations and the diagnostics engine.
 *
 * Memory. A compilation allocates from one Arena and frees it whole at the
 * end; nothing in the compiler calls free() on a single node. That keeps the
 * error paths of the parser and sema trivial (nothing leaks when a half-built
 * node is abandoned) and makes "free everything" one call.
 *
 * Locations. A Loc is a half-open source range: the first character
 * (line/col, 1-based, columns counted in bytes as clang does) and the
 * position just past the last. `file` indexes the Diag's file table, so a
 * Loc is 20 bytes and copies freely.
 *
 * Diagnostics. Every message goes through one Diag, which prints
 *   path:line:col: error: message
 *     source line
 *     ^~~~
 * with colour only on a terminal (and never when NO_COLOR is set), counts
 * errors, and stops accepting errors after a limit so that a bad input cannot
 * flood the terminal. There is no global state: the Diag lives in the
 * compilation's context.
 */
#ifndef TILE_BASE_H
#define TILE_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---------------------------------------------------------------- arena */

typedef struct Arena Arena;

/* Running out of memory is not fatal (arena.c): ar_alloc never returns
 * NULL; after a failed malloc it serves a reserve and ar_failed() turns
 * true, which the Diag reports as an error (dg_full, dg_errors). ar_new
 * returns NULL when not even the arena can be allocated. */
Arena *ar_new(void);
void ar_free(Arena *a);
void *ar_alloc(Arena *a, size_t n);          /* zeroed, 16-byte aligned */
void *ar_try_alloc(Arena *a, size_t n);      /* the same, or NULL */
int ar_failed(const Arena *a);               /* a malloc failed */
/* From now on, growing past `bytes` handed out fails as malloc would. */
void ar_set_limit(Arena *a, size_t bytes);
char *ar_strndup(Arena *a, const char *s, size_t n);
char *ar_strdup(Arena *a, const char *s);
char *ar_printf(Arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
char *ar_vprintf(Arena *a, const char *fmt, va_list ap);
size_t ar_used(const Arena *a);              /* bytes handed out */

/* Growable array in an arena: `Vec(int) v = {0}; vec_push(ar, &v, 3);`.
 * Growing copies into a fresh arena block; the old one is simply dropped. */
#define Vec(T) struct { T *v; int n, cap; }
#define vec_push(ar, vec, x)                                                \
    do {                                                                    \
        if ((vec)->n == (vec)->cap)                                         \
            vec_grow_((ar), (void **)&(vec)->v, &(vec)->cap, (vec)->n,      \
                      sizeof(*(vec)->v));                                   \
        (vec)->v[(vec)->n++] = (x);                                         \
    } while (0)
void vec_grow_(Arena *a, void **v, int *cap, int n, size_t elem);

/* String-keyed hash table in an arena (map.c): `StrMap m = {0};`. Keys
 * are not copied; map_put replaces the value of a key already there. */
typedef struct StrMap {
    const char **keys;
    void **vals;
    size_t n, cap;
} StrMap;
void *map_get(const StrMap *m, const char *key);     /* NULL: absent */
void map_put(Arena *a, StrMap *m, const char *key, void *val);

/* Dynamic string builder (malloc-backed; used for output that outlives the
 * arena, such as diagnostics returned to library callers). Out of memory,
 * it stops growing and sets `failed`. */
typedef struct Buf {
    char *s;
    size_t n, cap;
    int failed;
} Buf;
void buf_putc(Buf *b, char c);
void buf_puts(Buf *b, const char *s);
void buf_put(Buf *b, const char *s, size_t n);
void buf_printf(Buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
void buf_free(Buf *b);

/* ------------------------------------------------------------ locations */

typedef struct Loc {
    uint32_t file;       /* index in the Diag's file table */
    uint32_t line, col;  /* first character, 1-based */
    uint32_t eline, ecol;/* one past the last character */
} Loc;

Loc loc_span(Loc a, Loc b);  /* from the start of a to the end of b */

/* ---------------------------------------------------------- diagnostics */

typedef enum { DG_ERROR, DG_WARNING, DG_NOTE } DgLevel;

typedef struct Diag Diag;

/* Messages go to `out` (usually stderr) or, when out is NULL, are collected
 * in a buffer that dg_text() returns (for library callers). `color` < 0
 * means "decide": colour when out is a terminal and NO_COLOR is unset. */
Diag *dg_new(Arena *a, FILE *out, int color);
void dg_set_limit(Diag *d, int max_errors);  /* 0: unlimited; default 20 */

/* Registers a source text (not copied: it must outlive the Diag) and
 * returns its file index for Locs. */
uint32_t dg_add_file(Diag *d, const char *path, const char *text, size_t len);
const char *dg_file_path(const Diag *d, uint32_t file);
const char *dg_file_text(const Diag *d, uint32_t file, size_t *len);

void dg_error(Diag *d, Loc l, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void dg_warn(Diag *d, Loc l, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void dg_note(Diag *d, Loc l, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void dg_report(Diag *d, DgLevel lv, Loc l, const char *fmt, va_list ap);
/* A message with no source position ("tilec: error: ..."). */
void dg_plain(Diag *d, DgLevel lv, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* dg_errors and dg_full count an arena out of memory as one more error
 * (reported as "out of memory" when first seen). */
int dg_errors(Diag *d);
int dg_warnings(const Diag *d);
/* While `mute` is non-zero, warnings (and the notes that follow them) are
 * dropped: not printed, not counted. Errors are unaffected. For a stage
 * that runs twice over the same input (tilec compiles the IR once per
 * specialization variant) and would otherwise repeat its warnings. */
void dg_mute_warnings(Diag *d, int mute);
/* True once the error limit was reached, after dg_stop, or once the arena
 * ran out of memory: stages stop early. */
int dg_full(Diag *d);
/* Makes dg_full() true from now on, without a message: after a fatal
 * error (and its notes), so that every stage stops at its next poll. */
void dg_stop(Diag *d);
const char *dg_text(const Diag *d);  /* collected text when out == NULL */
/* The message of the first error reported (no location, no "error:"; in
 * the Diag's arena), or NULL when none was. */
const char *dg_first_error(const Diag *d);
void dg_free(Diag *d);               /* frees the collected text buffer */

/* ------------------------------------------------------------- misc */

/* The largest file read_file accepts (sources and imports). */
#define FILE_READ_MAX ((size_t)64 << 20)

/* Reads a whole file ("-": stdin) into arena memory, NUL-terminated. NULL
 * on failure with errno set: EISDIR for a directory, EFBIG past
 * FILE_READ_MAX bytes (so /dev/zero or an endless FIFO is an error). */
char *read_file(Arena *a, const char *path, size_t *len);

/* Writes `n` bytes to `path` as cc does with -o (file.c): a symbolic link's
 * target is written; a device, FIFO or socket is written in place, never
 * replaced; a regular file is replaced atomically (temp file in the same
 * directory, then rename), keeping its permission bits, and a new one gets
 * 0666 & ~umask. "-" means stdout. Returns 0 or -1 with errno set. */
int write_file_atomic(const char *path, const void *data, size_t n);

/* The first DIR/name that is an executable regular file, for DIR in the
 * colon-separated list `path` ($PATH's form; empty entries skipped), in
 * arena memory; NULL when none is. */
char *find_on_path(Arena *a, const char *name, const char *path);

static inline int is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }
/* The least power of two >= x (x >= 1). */
static inline int64_t pow2_ceil(int64_t x) {
    int64_t p = 1;
    while (p < x) p <<= 1;
    return p;
}

#endif
