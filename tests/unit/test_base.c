/* Unit tests of base/: arena, vectors, buffers and the diagnostics format. */
#include "base/base.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    CHECK_STR(dg_first_error(d), "use of undeclared name 'foo'");
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
    CHECK_STR(dg_first_error(d), "e0");
    CHECK_STR(dg_text(d), "e.tile: error: e0\ne.tile: error: e1\n"
                          "fatal error: too many errors emitted, stopping now\n");
    dg_free(d);

    /* warnings and notes are not errors; a plain error is one */
    d = dg_new(a, NULL, 0);
    dg_plain(d, DG_WARNING, "w");
    CHECK(dg_first_error(d) == NULL);
    dg_plain(d, DG_ERROR, "cannot read '%s'", "x");
    dg_plain(d, DG_ERROR, "second");
    CHECK_STR(dg_first_error(d), "cannot read 'x'");
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

/* find_on_path: the first executable regular file in list order; a
 * directory, a file without the execute bit and empty entries are skipped. */
static void test_find_on_path(void) {
    char top[] = "/tmp/tile-path-XXXXXX";
    CHECK(mkdtemp(top) != NULL);
    Arena *a = ar_new();
    const char *d1 = ar_printf(a, "%s/d1", top), *d2 = ar_printf(a, "%s/d2", top);
    const char *d3 = ar_printf(a, "%s/d3", top);
    CHECK(mkdir(d1, 0755) == 0 && mkdir(d2, 0755) == 0 && mkdir(d3, 0755) == 0);
    CHECK(mkdir(ar_printf(a, "%s/tool", d1), 0755) == 0);          /* a directory */
    const char *plain = ar_printf(a, "%s/tool", d2);                 /* not executable */
    const char *exe = ar_printf(a, "%s/tool", d3);
    CHECK(write_file_atomic(plain, "x", 1) == 0 && chmod(plain, 0644) == 0);
    CHECK(write_file_atomic(exe, "#!/bin/sh\n", 10) == 0 && chmod(exe, 0755) == 0);
    const char *list = ar_printf(a, "::/nonexistent:%s:%s:%s", d1, d2, d3);
    const char *got = find_on_path(a, "tool", list);
    CHECK(got && strcmp(got, exe) == 0);
    CHECK(find_on_path(a, "tool", ar_printf(a, "%s:%s", d1, d2)) == NULL);
    CHECK(find_on_path(a, "tool", "") == NULL && find_on_path(a, "tool", NULL) == NULL);
    CHECK(find_on_path(a, "other", list) == NULL);
    remove(exe), remove(plain), rmdir(ar_printf(a, "%s/tool", d1));
    rmdir(d1), rmdir(d2), rmdir(d3), rmdir(top);
    ar_free(a);
}

int main(void) {
    test_arena();
    test_map();
    test_diag();
    test_files();
    test_find_on_path();
    return check_done("test_base");
}
