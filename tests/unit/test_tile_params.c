/* Tests of the parameter queries of tile_interp.h that the Python binding
 * uses to check arguments before a run: tile_kernel_params (names,
 * types after substitution of type parameters, stored pointers) and
 * tile_kernel_has_grid. */
#include "interp/tile_interp.h"
#include "check.h"

#include <stdlib.h>

static const char src[] =
    "kernel scale<T: type = f32, BLOCK: i32 = 64>(out: *T, x: *T, a: f32, n: i32)\n"
    "    grid(cdiv(n, BLOCK))\n"
    "{\n"
    "    let offs = program_id(0) * BLOCK + arange(0, BLOCK);\n"
    "    store(out + offs, (load(x + offs, mask=offs < n) as f32 * a) as T, mask=offs < n);\n"
    "}\n"
    "kernel count(hits: *i32, flag: bool) {\n"
    "    atomic_add(hits, 1);\n"
    "}\n"
    "kernel nothing() {\n"
    "}\n";

static TileProgram *compile(const char *const *defines, int ndefines) {
    TileCompileOptions o = {defines, ndefines, NULL, 0, NULL, 0};
    char *diags = NULL;
    TileProgram *p = tile_compile_source("sig.tile", src, sizeof src - 1, &o, &diags);
    if (diags) fprintf(stderr, "%s", diags);
    free(diags);
    return p;
}

static void check_signature(TileProgram *p, const char *kernel, const char *want) {
    char *s = tile_kernel_params(p, kernel);
    CHECK_STR(s, want);
    free(s);
}

int main(void) {
    TileProgram *p = compile(NULL, 0);
    CHECK(p != NULL);
    if (!p) return check_done("test_tile_params");
    check_signature(p, "scale", "out *f32 stored\nx *f32\na f32\nn i32\n");
    check_signature(p, "count", "hits *i32 stored\nflag bool\n");
    check_signature(p, "nothing", "");
    CHECK(tile_kernel_params(p, "missing") == NULL);
    CHECK(tile_kernel_params(p, NULL) == NULL);
    CHECK(tile_kernel_has_grid(p, "scale") == 1);
    CHECK(tile_kernel_has_grid(p, "count") == 0);
    CHECK(tile_kernel_has_grid(p, "missing") == -1);
    tile_program_free(p);

    const char *f16[] = {"T=f16"};
    p = compile(f16, 1);
    CHECK(p != NULL);
    if (p) check_signature(p, "scale", "out *f16 stored\nx *f16\na f32\nn i32\n");
    tile_program_free(p);
    return check_done("test_tile_params");
}
