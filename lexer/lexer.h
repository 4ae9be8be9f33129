/*
 * lexer.h — the scanner's context, shared by the flex scanner (lexer.l) and
 * the bison parser (parser/parser.y).
 *
 * The scanner is reentrant: everything it knows lives in an LxCtx hung on
 * the flex scanner as its "extra" data. Besides the position (line and
 * column, 1-based, counted in bytes) it remembers a little about the tokens
 * it has handed out, because the parser's error messages want it:
 *
 *   - the last two tokens and their locations ("expected ';' after
 *     expression" points just past the previous token);
 *   - a stack of the open brackets — ( [ { — with what each one opened
 *     (a call, a parameter list, a block, ...), so that a missing closer is
 *     reported as "expected ')' to close call" with a note at the opener.
 *
 * The bracket stack doubles as the nesting limit: the 257th open bracket is
 * a fatal "nesting too deep" error, after which the scanner only returns end
 * of input. Nothing deeper than PS_MAX_DEPTH brackets ever reaches the
 * parser, so no later recursive stage can overflow the C stack on them.
 *
 * The scanner's own buffers are malloc'ed by flex and released by
 * lx_close(); every token value (identifier names, decoded strings) lives in
 * the compilation's arena.
 */
#ifndef TILE_LEXER_H
#define TILE_LEXER_H

#include "base/base.h"
#include "parser/parser.h"

/* The value of a token: identifiers and strings carry text (arena), numbers
 * their value and spelling. */
typedef struct LxTok {
    const char *text;    /* identifier name, decoded string, literal spelling */
    uint64_t ival;       /* INT */
    double fval;         /* FLOAT */
} LxTok;

/* What an open bracket opened; chooses the wording of "expected ')' ...". */
typedef enum {
    LD_PAREN,       /* ( expr ) */
    LD_CALL,        /* f( */
    LD_PARAMS,      /* fn f(  kernel k<..>( */
    LD_ATTR,        /* @tune( */
    LD_GRID,        /* grid( */
    LD_BRACKET,     /* [ */
    LD_BLOCK,       /* { */
} LxDelimKind;

typedef struct LxDelim {
    char ch;             /* '(', '[' or '{' */
    LxDelimKind kind;
    Loc loc;
} LxDelim;

typedef struct LxCtx {
    Arena *ar;
    Diag *dg;
    uint32_t file;
    uint32_t line, col;  /* position of the next byte */
    int errors;          /* lexical errors reported */
    int fatal;           /* nesting limit hit: only end of input follows */
    int tok, prev, prev2;/* kinds of the last three tokens (0: none) */
    Loc tokloc, prevloc; /* locations of the last two */
    int in_header;       /* between `fn`/`kernel` and the body's '{' */
    int ndelims;
    LxDelim delims[PS_MAX_DEPTH];
} LxCtx;

/* Starts scanning `len` bytes of `text` (file index `file` in dg). Returns
 * the flex scanner handle; `ctx` must outlive it. */
void *lx_open(LxCtx *ctx, Arena *ar, Diag *dg, uint32_t file,
              const char *text, size_t len);
void lx_close(void *scanner);
LxCtx *lx_ctx(void *scanner);

/* Spelling of a token kind for messages and --emit=tokens: "'('",
 * "'kernel'", "identifier", "end of file". */
const char *lx_token_name(int kind);

#endif
