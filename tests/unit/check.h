/* check.h — the tiny assertion kit of the unit tests: CHECK counts and
 * reports failures with their line; check_done() sets the exit status. */
#ifndef TILE_CHECK_H
#define TILE_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures, check_count;

#define CHECK(c)                                                          \
    do {                                                                  \
        check_count++;                                                    \
        if (!(c)) {                                                       \
            check_failures++;                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,        \
                    __LINE__, #c);                                        \
        }                                                                 \
    } while (0)

#define CHECK_STR(a, b)                                                   \
    do {                                                                  \
        const char *a_ = (a), *b_ = (b);                                  \
        check_count++;                                                    \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) {                          \
            check_failures++;                                             \
            fprintf(stderr, "%s:%d: strings differ:\n--- got\n%s\n"      \
                    "--- expected\n%s\n", __FILE__, __LINE__,             \
                    a_ ? a_ : "(null)", b_ ? b_ : "(null)");              \
        }                                                                 \
    } while (0)

/* Removes the directory tree `dir` (a test's temporary files); 0 when
 * done. */
static inline int remove_tree(const char *dir) {
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

static inline int check_done(const char *name) {
    fprintf(stderr, "%s: %d checks, %d failed\n", name, check_count,
            check_failures);
    return check_failures ? 1 : 0;
}
#endif
