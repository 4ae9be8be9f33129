/*
 * diag.c — clang-style diagnostics.
 *
 * A message names its position, then shows the source line and underlines
 * the range: a caret under the first character and tildes under the rest of
 * the range on that line. Tabs in the source are copied into the underline
 * so the caret stays aligned whatever the terminal's tab width. Multi-line
 * ranges are underlined to the end of their first line.
 *
 * When the error limit is reached, one last message says so and every later
 * error is dropped; stages poll dg_full() to stop work early. The same
 * poll stops them after a fatal error (dg_stop: a compile-time budget was
 * exceeded) and once the arena ran out of memory, which dg_full() and
 * dg_errors() report as one error, "out of memory".
 *
 * Finding a line to show scans the file from the last line shown, not from
 * its start, so a long run of warnings in order costs linear time.
 */
#include "base.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct SrcFile {
    const char *path, *text;
    size_t len;
    uint32_t seen_line;  /* a line found before (0: none) and its start */
    const char *seen;
} SrcFile;

struct Diag {
    Arena *ar;
    FILE *out;
    int color;
    int limit, errors, warnings, full;
    int oom;                    /* the arena's failure was reported */
    int mute_warnings, muted;   /* muted: the last warning was dropped */
    Vec(SrcFile) files;
    Buf text;
    const char *first_error;    /* the first error's message alone */
};

Diag *dg_new(Arena *a, FILE *out, int color) {
    Diag *d = ar_alloc(a, sizeof *d);
    d->ar = a;
    d->out = out;
    if (color < 0) {
        const char *nc = getenv("NO_COLOR");
        color = out && !(nc && *nc) && isatty(fileno(out));
    }
    d->color = color;
    d->limit = 20;
    return d;
}

void dg_set_limit(Diag *d, int max_errors) { d->limit = max_errors; }

void dg_mute_warnings(Diag *d, int mute) { d->mute_warnings = mute; }

/* True when a message of level lv is dropped (see dg_mute_warnings). */
static int dropped(Diag *d, DgLevel lv) {
    if (lv == DG_NOTE) return d->muted;
    d->muted = lv == DG_WARNING && d->mute_warnings;
    return d->muted;
}

uint32_t dg_add_file(Diag *d, const char *path, const char *text, size_t len) {
    SrcFile f = {path, text, len, 0, NULL};
    vec_push(d->ar, &d->files, f);
    return (uint32_t)d->files.n - 1;
}

const char *dg_file_path(const Diag *d, uint32_t file) {
    return file < (uint32_t)d->files.n ? d->files.v[file].path : "<unknown>";
}

const char *dg_file_text(const Diag *d, uint32_t file, size_t *len) {
    if (file >= (uint32_t)d->files.n) return NULL;
    if (len) *len = d->files.v[file].len;
    return d->files.v[file].text;
}

Loc loc_span(Loc a, Loc b) {
    Loc l = a;
    l.eline = b.eline;
    l.ecol = b.ecol;
    return l;
}

/* Reports the arena's running out of memory, once; later messages are
 * dropped (they would allocate from the arena's last reserve). */
static void check_memory(Diag *d) {
    if (d->oom || !ar_failed(d->ar)) return;
    d->oom = 1;
    d->full = 0;
    dg_plain(d, DG_ERROR, "out of memory");
    d->full = 1;
}

int dg_errors(Diag *d) {
    check_memory(d);
    return d->errors;
}

int dg_warnings(const Diag *d) { return d->warnings; }

int dg_full(Diag *d) {
    check_memory(d);
    return d->full;
}

void dg_stop(Diag *d) { d->full = 1; }
const char *dg_text(const Diag *d) { return d->text.s ? d->text.s : ""; }
const char *dg_first_error(const Diag *d) { return d->first_error; }
void dg_free(Diag *d) { buf_free(&d->text); }

static void emit(Diag *d, const char *s, size_t n) {
    if (d->out)
        fwrite(s, 1, n, d->out);
    else
        buf_put(&d->text, s, n);
}

static void emitf(Diag *d, const char *fmt, ...) {
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    emit(d, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static const char *level_name[] = {"error", "warning", "note"};
static const char *level_color[] = {"\033[1;31m", "\033[1;35m", "\033[1;36m"};

/* Finds line `line` (1-based) of the file; returns its start and length. */
static const char *find_line(SrcFile *f, uint32_t line, size_t *len) {
    const char *p = f->text, *end = f->text + f->len;
    uint32_t l = 1;
    if (f->seen && f->seen_line <= line) p = f->seen, l = f->seen_line;
    for (; l < line && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) return NULL;
        p = nl + 1;
    }
    if (p > end) return NULL;
    f->seen = p;
    f->seen_line = line;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    *len = (size_t)((nl ? nl : end) - p);
    return p;
}

/* Prints the source line and the underline for l. */
static void show_source(Diag *d, Loc l) {
    if (l.file >= (uint32_t)d->files.n || l.line == 0) return;
    SrcFile *f = &d->files.v[l.file];
    size_t len;
    const char *p = find_line(f, l.line, &len);
    if (!p) return;
    if (len > 0 && p[len - 1] == '\r') len--;
    /* Show control bytes as spaces so the line stays readable and the
     * terminal safe; NUL bytes and invalid UTF-8 are reported elsewhere. */
    char *line = malloc(len + 1);
    if (!line) return;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        line[i] = (c < 0x20 && c != '\t') || c == 0x7f ? ' ' : (char)c;
    }
    emit(d, line, len);
    emit(d, "\n", 1);
    size_t col = l.col ? l.col - 1 : 0;
    if (col > len) col = len;
    size_t end = l.eline == l.line && l.ecol > l.col ? l.ecol - 1 : col + 1;
    if (end > len) end = len > col ? len : col + 1;
    Buf u = {0};
    for (size_t i = 0; i < col; i++) buf_putc(&u, line[i] == '\t' ? '\t' : ' ');
    if (d->color) buf_puts(&u, "\033[1;32m");
    buf_putc(&u, '^');
    for (size_t i = col + 1; i < end; i++) buf_putc(&u, '~');
    if (d->color) buf_puts(&u, "\033[0m");
    buf_putc(&u, '\n');
    emit(d, u.s, u.n);
    buf_free(&u);
    free(line);
}

static void header(Diag *d, DgLevel lv) {
    if (d->color) emitf(d, "%s", level_color[lv]);
    emitf(d, "%s:", level_name[lv]);
    if (d->color) emitf(d, "\033[0m\033[1m");
    emit(d, " ", 1);
}

void dg_report(Diag *d, DgLevel lv, Loc l, const char *fmt, va_list ap) {
    if (d->full || dropped(d, lv)) return;
    if (lv == DG_ERROR && d->limit > 0 && d->errors >= d->limit) {
        d->full = 1;
        if (d->color) emitf(d, "\033[1;31m");
        emitf(d, "fatal error:");
        if (d->color) emitf(d, "\033[0m");
        emitf(d, " too many errors emitted, stopping now\n");
        return;
    }
    if (lv == DG_ERROR) d->errors++;
    if (lv == DG_WARNING) d->warnings++;
    if (d->color) emitf(d, "\033[1m");
    if (l.file < (uint32_t)d->files.n && l.line)
        emitf(d, "%s:%u:%u: ", d->files.v[l.file].path, l.line, l.col);
    else if (l.file < (uint32_t)d->files.n)
        emitf(d, "%s: ", d->files.v[l.file].path);
    header(d, lv);
    char *msg = ar_vprintf(d->ar, fmt, ap);
    if (lv == DG_ERROR && !d->first_error) d->first_error = msg;
    emit(d, msg, strlen(msg));
    if (d->color) emitf(d, "\033[0m");
    emit(d, "\n", 1);
    show_source(d, l);
}

#define DG_VARIADIC(name, lv)                                    \
    void name(Diag *d, Loc l, const char *fmt, ...) {            \
        va_list ap;                                              \
        va_start(ap, fmt);                                       \
        dg_report(d, lv, l, fmt, ap);                            \
        va_end(ap);                                              \
    }
DG_VARIADIC(dg_error, DG_ERROR)
DG_VARIADIC(dg_warn, DG_WARNING)
DG_VARIADIC(dg_note, DG_NOTE)

void dg_plain(Diag *d, DgLevel lv, const char *fmt, ...) {
    if (d->full || dropped(d, lv)) return;
    if (lv == DG_ERROR) d->errors++;
    if (lv == DG_WARNING) d->warnings++;
    if (d->color) emitf(d, "\033[1m");
    emitf(d, "tilec: ");
    header(d, lv);
    va_list ap;
    va_start(ap, fmt);
    char *msg = ar_vprintf(d->ar, fmt, ap);
    va_end(ap);
    if (lv == DG_ERROR && !d->first_error) d->first_error = msg;
    emit(d, msg, strlen(msg));
    if (d->color) emitf(d, "\033[0m");
    emit(d, "\n", 1);
}
