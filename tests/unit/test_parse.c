/* Unit tests of the frontend: the spec's examples parse. */
#include "parser/parser.h"
#include "check.h"

int main(void) {
    Arena *ar = ar_new();
    Diag *dg = dg_new(ar, stderr, 0);
    size_t len;
    char *text = read_file(ar, TEST_INPUTS "/spec-examples.tile", &len);
    CHECK(text != NULL);
    uint32_t f = dg_add_file(dg, "spec-examples.tile", text, len);
    AstFile *file = ps_parse(ar, dg, f, text, len);
    CHECK(dg_errors(dg) == 0);
    CHECK(file->nitems == 5);
    dg_free(dg);
    ar_free(ar);
    return check_done("test_parse");
}
