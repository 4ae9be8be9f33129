/*
 * replay.c — runs the fuzz target over files without libFuzzer.
 *
 * `make check` runs it over the seed corpus (tests/fuzz/corpus), so every
 * crash the fuzzer ever found and every seed stays a regression test, also
 * in the sanitizer build. Usage: replay FILE-OR-DIR...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads a whole file into malloc'd memory; NULL on failure. */
static uint8_t *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *data = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            uint8_t *bigger = realloc(data, cap);
            if (!bigger) {
                free(data);
                fclose(f);
                return NULL;
            }
            data = bigger;
        }
        size_t got = fread(data + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(data);
        return NULL;
    }
    *size = n;
    return data;
}

static int replay(const char *path);

static int replay_dir(const char *path) {
    DIR *dir = opendir(path);
    if (!dir) {
        perror(path);
        return 1;
    }
    int failures = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        char *child = malloc(len);
        if (!child) {
            failures++;
            break;
        }
        snprintf(child, len, "%s/%s", path, e->d_name);
        failures += replay(child);
        free(child);
    }
    closedir(dir);
    return failures;
}

static int replay(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return 1;
    }
    if (S_ISDIR(st.st_mode))
        return replay_dir(path);
    size_t size = 0;
    uint8_t *data = slurp(path, &size);
    if (!data) {
        perror(path);
        return 1;
    }
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

int main(int argc, char **argv) {
    int failures = 0;
    for (int i = 1; i < argc; i++)
        failures += replay(argv[i]);
    fprintf(stderr, "replay: %s\n", failures ? "failed" : "ok");
    return failures ? 1 : 0;
}
