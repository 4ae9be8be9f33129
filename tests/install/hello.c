/*
 * hello.c — a program built against the *installed* libtilec, as a user
 * would build it: `cc hello.c $(pkg-config --cflags --libs tile)`.
 * `make installcheck` (and so `make distcheck`) builds and runs it. It
 * compiles a kernel that imports the installed standard library (with
 * TILE_STDLIB unset, so the library finds it beside itself:
 * sema/stdlib_dir.c), runs it in the interpreter and checks every element.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tile_interp.h>

static const char source[] =
    "import \"std/math\";\n"
    "kernel act<BLOCK: i32 = 256>(out: *f32, x: *f32, n: i32)\n"
    "    grid(cdiv(n, BLOCK))\n"
    "{\n"
    "    let offs = program_id(0) * BLOCK + arange(0, BLOCK);\n"
    "    let m = offs < n;\n"
    "    store(out + offs, relu(load(x + offs, mask=m)) + 1.0, mask=m);\n"
    "}\n";

int main(void) {
    enum { N = 1000 };
    static float x[N], out[N];
    char *messages = NULL, *error = NULL;
    for (int i = 0; i < N; i++)
        x[i] = (float)(i - N / 2) / 7.0f;

    TileProgram *prog =
        tile_compile_source("act.tile", source, strlen(source), NULL, &messages);
    if (!prog) {
        fprintf(stderr, "hello: compile failed:\n%s", messages ? messages : "");
        free(messages);
        return 1;
    }
    free(messages);
    TileArg args[] = {tile_arg_buffer(out, sizeof out),
                      tile_arg_buffer(x, sizeof x), tile_arg_int(N)};
    if (tile_interp_run(prog, "act", args, 3, NULL, &error) != 0) {
        fprintf(stderr, "hello: run failed: %s\n", error ? error : "");
        free(error);
        tile_program_free(prog);
        return 1;
    }
    tile_program_free(prog);
    int bad = 0;
    for (int i = 0; i < N; i++)
        bad += out[i] != (x[i] < 0 ? 0.0f : x[i]) + 1.0f;
    printf("hello: %d of %d elements right\n", N - bad, N);
    return bad != 0;
}
