/*
 * fuzz_parse.c — libFuzzer target over the frontend.
 *
 * Any byte string is a possible .tile file: the lexer and parser must turn
 * it into diagnostics and a (possibly partial) AST without crashing,
 * hanging, leaking or touching memory they do not own. Each input gets a
 * fresh Arena and a Diag that collects its text instead of printing it, is
 * parsed, and the AST is printed (to exercise the printer on whatever error
 * recovery produced); then the token printer runs over the same bytes
 * with a Diag of its own. Built with -fsanitize=fuzzer,address,undefined by
 * tests/fuzz/run.sh; tests/fuzz/replay.c runs the same function over the
 * seed corpus without libFuzzer, as an ordinary test.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/base.h"
#include "parser/parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Runs the token printer (tilec --emit=tokens) over the input. */
static void fuzz_tokens(const char *text, size_t size) {
    Arena *ar = ar_new();
    Diag *dg = dg_new(ar, NULL, 0);
    uint32_t file = dg_add_file(dg, "fuzz.tile", text, size);
    char *printed = NULL;
    size_t printed_len = 0;
    FILE *out = open_memstream(&printed, &printed_len);
    if (out) {
        ps_print_tokens(out, ar, dg, file, text, size);
        fclose(out);
        free(printed);
    }
    dg_free(dg);
    ar_free(ar);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    Arena *ar = ar_new();
    Diag *dg = dg_new(ar, NULL, 0);
    uint32_t file = dg_add_file(dg, "fuzz.tile", text, size);
    AstFile *ast = ps_parse(ar, dg, file, text, size);
    if (ast) {
        /* The printed tree goes to a memory stream: only its making
         * matters. */
        char *printed = NULL;
        size_t printed_len = 0;
        FILE *out = open_memstream(&printed, &printed_len);
        if (out) {
            ps_print_ast(out, ast);
            fclose(out);
            free(printed);
        }
    }
    (void)dg_text(dg);
    dg_free(dg);
    ar_free(ar);
    fuzz_tokens(text, size);
    return 0;
}
