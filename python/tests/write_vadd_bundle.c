/* write_vadd_bundle FILE — writes the runtime tests' hand-written vadd
 * bundle (tests/unit/vadd_bundle.h) to FILE, so that the Python binding's
 * tests can tile.load a real bundle before tilec writes bundles itself. */
#include <stdio.h>
#include <stdlib.h>

/* vadd_bundle.h uses stdio without including it. */
#include "tests/unit/vadd_bundle.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: write_vadd_bundle FILE\n");
        return 2;
    }
    void *data;
    size_t size;
    if (vadd_bundle(&data, &size)) return 1;
    FILE *f = fopen(argv[1], "wb");
    int ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f)) ok = 0;
    free(data);
    if (!ok) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
