/* Unit tests of base/: arena, vectors, buffers and the diagnostics format. */
#include "base/base.h"
#include "check.h"

#include <stdlib.h>

static void test_arena(void) {
    Arena *a = ar_new();
    char *p = ar_alloc(a, 3);
    CHECK(p && ((uintptr_t)p & 15) == 0 && p[0] == 0);
    void *big = ar_alloc(a, 5 << 20);  /* larger than a block */
    CHECK(big != NULL);
    CHECK_STR(ar_printf(a, "%s-%d", "x", 42), "x-42");
    CHECK_STR(ar_strndup(a, "hello", 4), "hell");
    Vec(int) v = {0};
    for (int i = 0; i < 1000; i++) vec_push(a, &v, i * 2);
    CHECK(v.n == 1000 && v.v[999] == 1998 && v.v[0] == 0);
    ar_free(a);
}

static void test_map(void) {
    Arena *a = ar_new();
    StrMap m = {0};
    CHECK(map_get(&m, "x") == NULL);
    static int vals[1000];
    for (int i = 0; i < 1000; i++)
        map_put(a, &m, ar_printf(a, "k%d", i), &vals[i]);
    map_put(a, &m, "k7", &vals[0]);                 /* replaces */
    CHECK(m.n == 1000 && map_get(&m, "k7") == &vals[0]);
    CHECK(map_get(&m, "k999") == &vals[999] && map_get(&m, "k1000") == NULL);
    ar_free(a);
}

static void test_diag(void) {
    Arena *a = ar_new();
    Diag *d = dg_new(a, NULL, 0);
    const char *src = "let x = 1;\n\tlet y = foo;\n";
    uint32_t f = dg_add_file(d, "t.tile", src, strlen(src));
    Loc l = {f, 2, 10, 2, 13};
    dg_error(d, l, "use of undeclared name '%s'", "foo");
    dg_note(d, (Loc){f, 1, 5, 1, 6}, "'x' declared here");
    CHECK(dg_errors(d) == 1);
    CHECK_STR(dg_text(d),
              "t.tile:2:10: error: use of undeclared name 'foo'\n"
              "\tlet y = foo;\n"
              "\t        ^~~\n"
              "t.tile:1:5: note: 'x' declared here\n"
              "let x = 1;\n"
              "    ^\n");
    dg_free(d);

    d = dg_new(a, NULL, 0);
    dg_set_limit(d, 2);
    f = dg_add_file(d, "e.tile", "", 0);
    for (int i = 0; i < 5; i++) dg_error(d, (Loc){f, 0, 0, 0, 0}, "e%d", i);
    CHECK(dg_full(d) && dg_errors(d) == 2);
    CHECK_STR(dg_text(d), "e.tile: error: e0\ne.tile: error: e1\n"
                          "fatal error: too many errors emitted, stopping now\n");
    dg_free(d);
    ar_free(a);
}

static void test_files(void) {
    char path[] = "/tmp/tile-test-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write_file_atomic(path, "abc", 3) == 0);
    Arena *a = ar_new();
    size_t n = 0;
    char *s = read_file(a, path, &n);
    CHECK(s && n == 3 && strcmp(s, "abc") == 0);
    CHECK(read_file(a, "/nonexistent/x.tile", &n) == NULL);
    CHECK(write_file_atomic("/nonexistent/dir/out", "x", 1) == -1);
    remove(path);
    ar_free(a);
    (void)fd;
}

int main(void) {
    test_arena();
    test_map();
    test_diag();
    test_files();
    return check_done("test_base");
}
