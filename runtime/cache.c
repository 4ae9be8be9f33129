/*
 * cache.c — autotuning results on disk, so a process starts with what an
 * earlier one measured.
 *
 * One file per bundle, named by the hash of its bytes:
 *   $TILE_CACHE_DIR/<hash>.tune, else $XDG_CACHE_HOME/tile/<hash>.tune,
 *   else $HOME/.cache/tile/<hash>.tune.
 * It is text, one winner a line:
 *
 *   tile-tune 1
 *   KERNEL <tab> DEVICE <tab> DRIVER <tab> KEY <tab> CONFIG <tab> NAME <tab> MICROSECONDS
 *   ...
 *   end LINES CRC
 *
 * DEVICE is the device's name, DRIVER the driver's CUDA version (12040),
 * KEY rt_key_text's form, CONFIG the configuration's index and NAME its
 * "BLOCK=1024,warps=4,stages=3" (both must agree for a line to count),
 * the last line the number of entries and the CRC-32C of every byte before
 * it, so that a truncated or damaged file is recognized. Such a file is
 * ignored with a warning (tuning runs again) and rewritten whole by the
 * next store. A store reads the file, replaces or adds its line, writes a
 * temporary file in the same directory and renames it over the old one,
 * so readers (who take no lock) see the old file or the new one, never a
 * part. Stores are serialized across processes by an flock on
 * <hash>.tune.lock beside the file, so the ranks of a data-parallel job
 * tuning at once each keep their line (without a lock, as on a directory
 * where it cannot be made, two stores at once may lose one's line, which
 * is then measured again, never corrupt the file). Lines are per device
 * name and driver version, so processes on different GPUs share one file
 * without mixing results.
 *
 * The path is opened non-blocking and read only when it is a regular
 * file (at most 16 MiB): a FIFO, device or directory placed there is
 * neither read (a FIFO would block the first tuned launch forever) nor
 * replaced by a store; a warning says tuning results are not kept.
 */
#include "runtime/rt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER "tile-tune 1\n"
#define MAX_FILE (16u << 20)

static int cache_dir(char *buf, size_t n) {
    const char *dir = getenv("TILE_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    int w;
    if (dir && *dir) w = snprintf(buf, n, "%s", dir);
    else if (xdg && *xdg) w = snprintf(buf, n, "%s/tile", xdg);
    else if (home && *home) w = snprintf(buf, n, "%s/.cache/tile", home);
    else return -1;
    return w > 0 && (size_t)w < n ? 0 : -1;
}

int rt_cache_path(const TileBundle *b, char *buf, size_t n) {
    char dir[1024];
    if (cache_dir(dir, sizeof dir)) return -1;
    int w = snprintf(buf, n, "%s/%016llx.tune", dir, (unsigned long long)b->hash);
    return w > 0 && (size_t)w < n ? 0 : -1;
}

/* read_entries' results besides 0: a corrupt or unreadable file (ignored,
 * rewritten by the next store), and something that is not a regular file
 * (a FIFO, a device, a directory: never read, never replaced). */
enum { CACHE_BAD = -1, CACHE_SPECIAL = -2 };

/* The file's entry lines (between header and trailer) into *lines, a
 * malloc'd NUL-terminated string ("" for a missing file); or CACHE_BAD or
 * CACHE_SPECIAL with why[] saying why. The file is opened non-blocking
 * (a FIFO must not hang the first tuned launch) and read only when fstat
 * shows a regular file. */
static int read_entries(const char *path, char **lines, char *why, size_t n) {
    *lines = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        if (e != ENOENT) {
            snprintf(why, n, "%s", strerror(e));
            return e == ENXIO ? CACHE_SPECIAL : CACHE_BAD;   /* ENXIO: a socket */
        }
        *lines = strdup("");
        return *lines ? 0 : CACHE_BAD;
    }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        snprintf(why, n, "it is not a regular file");
        close(fd);
        return CACHE_SPECIAL;
    }
    size_t want = st.st_size > (off_t)MAX_FILE ? MAX_FILE + 1 : (size_t)st.st_size;
    char *data = malloc(want + 1);
    size_t size = 0;
    while (data && size < want) {
        ssize_t r = read(fd, data + size, want - size);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        size += (size_t)r;
    }
    close(fd);
    if (!data) {
        snprintf(why, n, "out of memory");
        return CACHE_BAD;
    }
    data[size < MAX_FILE ? size : MAX_FILE] = 0;
    const char *fail = NULL;
    char *trailer = NULL;
    if (size > MAX_FILE) fail = "larger than 16 MiB";
    else if (size < sizeof HEADER - 1 || memcmp(data, HEADER, sizeof HEADER - 1))
        fail = "no 'tile-tune 1' header";
    else if (size == 0 || data[size - 1] != '\n') fail = "truncated (no final newline)";
    if (!fail) {
        data[size - 1] = 0;
        trailer = strrchr(data, '\n');
        trailer = trailer ? trailer + 1 : NULL;
        unsigned count, crc;
        char extra;
        if (!trailer || sscanf(trailer, "end %u %x%c", &count, &crc, &extra) != 2) {
            fail = "truncated (no 'end' line)";
        } else if (tlb_crc32c(0, data, (size_t)(trailer - data)) != crc) {
            fail = "checksum mismatch";
        } else {
            unsigned got = 0;
            for (char *p = data + sizeof HEADER - 1; p < trailer; p++) got += *p == '\n';
            if (got != count) fail = "wrong entry count";
        }
    }
    if (fail) {
        snprintf(why, n, "%s", fail);
        free(data);
        return CACHE_BAD;
    }
    size_t len = (size_t)(trailer - data) - (sizeof HEADER - 1);
    memmove(data, data + sizeof HEADER - 1, len);
    data[len] = 0;
    *lines = data;
    return 0;
}

/* "KERNEL\tDEVICE\tDRIVER\tKEY\t": the part of a line that identifies it. */
static void line_prefix(const TileKernel *k, const char *device, int driver,
                        const RtTuneKey *key, char *buf, size_t n) {
    char dev[128], keytext[256];
    snprintf(dev, sizeof dev, "%s", device);
    for (char *c = dev; *c; c++)
        if (*c == '\t' || *c == '\n') *c = ' ';
    rt_key_text(k, key, keytext, sizeof keytext);
    snprintf(buf, n, "%s\t%s\t%d\t%s\t", k->k->name, dev, driver, keytext);
}

/* The line of `lines` starting with prefix, or NULL. */
static char *find_line(char *lines, const char *prefix) {
    size_t n = strlen(prefix);
    for (char *p = lines; *p;) {
        if (!strncmp(p, prefix, n)) return p;
        char *nl = strchr(p, '\n');
        if (!nl) break;
        p = nl + 1;
    }
    return NULL;
}

int rt_cache_lookup(const TileKernel *k, const char *device, int driver,
                    const RtTuneKey *key) {
    char path[1100], why[128], prefix[512];
    char *lines;
    if (rt_cache_path(k->bundle, path, sizeof path)) return -1;
    int r = read_entries(path, &lines, why, sizeof why);
    if (r == CACHE_SPECIAL) {
        rt_warn("ignoring the tuning cache '%s': %s; tuning results are not kept "
                "(set TILE_CACHE_DIR)", path, why);
        return -1;
    }
    if (r) {
        rt_warn("ignoring the tuning cache '%s': %s; it will be rewritten", path, why);
        return -1;
    }
    line_prefix(k, device, driver, key, prefix, sizeof prefix);
    char *line = find_line(lines, prefix);
    int config = -1;
    if (line) {
        char *end;
        long c = strtol(line + strlen(prefix), &end, 10);
        size_t namelen = c >= 0 && c < (long)k->k->nconfigs ? strlen(k->config_names[c]) : 0;
        if (namelen && *end == '\t' && !strncmp(end + 1, k->config_names[c], namelen) &&
            end[1 + namelen] == '\t')
            config = (int)c;
    }
    free(lines);
    return config;
}

static int mkdirs(char *dir) {
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        int r = mkdir(dir, 0755);
        *p = '/';
        if (r && errno != EEXIST) return -1;
    }
    return mkdir(dir, 0755) && errno != EEXIST ? -1 : 0;
}

/* An exclusive lock serializing stores to `path` across processes: flock
 * on <path>.lock, a regular file kept beside it (never removed, so every
 * process locks the same inode). The descriptor to close to release it, or
 * -1 when no lock can be had (something else at the lock's path, a
 * read-only directory): the store then goes ahead unlocked, still whole. */
static int lock_store(const char *path) {
    char lock[1200];
    snprintf(lock, sizeof lock, "%s.lock", path);
    int fd = open(lock, O_RDWR | O_CREAT | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
                  0644);
    struct stat st;
    if (fd < 0) return -1;
    int r = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? 0 : -1;
    while (r == 0 && (r = flock(fd, LOCK_EX)) && errno == EINTR) r = 0;
    if (r) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The new file's text: `lines` without the line of prefix, that line
 * with the new winner, the trailer. malloc'd (*size bytes), or NULL. */
static char *compose(const TileKernel *k, char *lines, const char *prefix, int config,
                     double us, size_t *size) {
    char *old = find_line(lines, prefix);
    if (old) {
        char *nl = strchr(old, '\n');
        memmove(old, nl ? nl + 1 : old + strlen(old), strlen(nl ? nl + 1 : "") + 1);
    }
    char *text = NULL;
    FILE *mem = open_memstream(&text, size);
    if (!mem) return NULL;
    fputs(HEADER, mem);
    fputs(lines, mem);
    fprintf(mem, "%s%d\t%s\t%.3f\n", prefix, config, k->config_names[config], us);
    if (fflush(mem) || !text) {   /* out of memory */
        fclose(mem);
        free(text);
        return NULL;
    }
    unsigned count = 0;
    for (const char *p = text + sizeof HEADER - 1; *p; p++) count += *p == '\n';
    fprintf(mem, "end %u %08x\n", count, tlb_crc32c(0, text, *size));
    if (fclose(mem) == 0) return text;
    free(text);
    return NULL;
}

/* Writes text to a temporary file beside path, syncs it and renames it
 * over path: readers see the old file or the new one, never a part. 0 or
 * -1 (errno set). */
static int replace_file(const char *path, const char *text, size_t size) {
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(fd, text + done, size - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        done += (size_t)w;
    }
    int ok = done == size && fsync(fd) == 0;
    ok &= close(fd) == 0;
    ok = ok && rename(tmp, path) == 0;   /* never a short file in place */
    if (!ok) unlink(tmp);
    return ok ? 0 : -1;
}

/* Read, merge and replace, under the store lock when there is one: two
 * processes storing at once (ranks of one job tuning the same kernel)
 * keep both their lines. */
int rt_cache_store(const TileKernel *k, const char *device, int driver,
                   const RtTuneKey *key, int config, double us) {
    const TileBundle *b = k->bundle;
    char dir[1024], path[1100], why[128], prefix[512];
    if (cache_dir(dir, sizeof dir) || rt_cache_path(b, path, sizeof path)) {
        rt_note(b, "no tuning cache directory (set TILE_CACHE_DIR)");
        return -1;
    }
    if (mkdirs(dir)) {
        rt_note(b, "cannot write the tuning cache '%s': %s", path, strerror(errno));
        return -1;
    }
    int lock = lock_store(path), ok = 0;
    char *lines, *text = NULL;
    size_t size = 0;
    int r = read_entries(path, &lines, why, sizeof why);
    if (r == CACHE_SPECIAL) {
        rt_note(b, "not writing the tuning cache '%s': %s", path, why);
    } else if (r == 0 || (lines = strdup(""))) {
        line_prefix(k, device, driver, key, prefix, sizeof prefix);
        text = compose(k, lines, prefix, config, us, &size);
        free(lines);
        ok = text && replace_file(path, text, size) == 0;
        if (text && !ok)
            rt_note(b, "cannot write the tuning cache '%s': %s", path, strerror(errno));
        free(text);
    }
    if (lock >= 0) close(lock);
    return ok ? 0 : -1;
}
