/*
 * parser.h — the public face of the frontend: source text in, AST out.
 *
 * ps_parse() runs the reentrant flex scanner and the pure bison parser over
 * one file. Syntax errors are reported through the Diag and the parser
 * recovers at statement and item boundaries, so one run reports several;
 * the returned AstFile holds every item that parsed (it is never NULL,
 * possibly empty). Callers check dg_errors() before trusting the tree for
 * code generation.
 */
#ifndef TILE_PARSER_H
#define TILE_PARSER_H

#include "ast.h"

/* Parses `text` (len bytes; NUL bytes inside are errors) registered in the
 * Diag as file index `file`. All nodes live in `ar`. */
AstFile *ps_parse(Arena *ar, Diag *dg, uint32_t file, const char *text,
                  size_t len);

/* Prints the AST as an indented, deterministic S-expression-like tree
 * (tilec --emit=ast). */
void ps_print_ast(FILE *out, const AstFile *f);

/* Prints the token stream, one token a line with its location
 * (tilec --emit=tokens). Returns the number of lexical errors. */
int ps_print_tokens(FILE *out, Arena *ar, Diag *dg, uint32_t file,
                    const char *text, size_t len);

/* Maximum nesting of expressions/blocks before the parser stops with
 * "nesting too deep" instead of risking the C stack. */
#define PS_MAX_DEPTH 256

#endif
