/*
 * error.c — libtile's error reporting: a status code returned by every
 * call, and a message per thread (tile_last_error) formatted only when
 * something fails, so the success path never touches it.
 */
#include "runtime/rt.h"

static _Thread_local char last_error[RT_ERRLEN];

TileStatus rt_error(TileStatus s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return s;
}

const char *tile_last_error(void) { return last_error; }

const char *tile_status_name(TileStatus s) {
    static const char *const names[] = {
        [TILE_OK] = "TILE_OK",
        [TILE_ERROR_INVALID_VALUE] = "TILE_ERROR_INVALID_VALUE",
        [TILE_ERROR_IO] = "TILE_ERROR_IO",
        [TILE_ERROR_INVALID_BUNDLE] = "TILE_ERROR_INVALID_BUNDLE",
        [TILE_ERROR_NOT_FOUND] = "TILE_ERROR_NOT_FOUND",
        [TILE_ERROR_ARGUMENT] = "TILE_ERROR_ARGUMENT",
        [TILE_ERROR_NO_CONFIG] = "TILE_ERROR_NO_CONFIG",
        [TILE_ERROR_GRID] = "TILE_ERROR_GRID",
        [TILE_ERROR_NO_DRIVER] = "TILE_ERROR_NO_DRIVER",
        [TILE_ERROR_DRIVER_TOO_OLD] = "TILE_ERROR_DRIVER_TOO_OLD",
        [TILE_ERROR_NO_DEVICE] = "TILE_ERROR_NO_DEVICE",
        [TILE_ERROR_UNSUPPORTED_DEVICE] = "TILE_ERROR_UNSUPPORTED_DEVICE",
        [TILE_ERROR_CUDA] = "TILE_ERROR_CUDA",
        [TILE_ERROR_OUT_OF_MEMORY] = "TILE_ERROR_OUT_OF_MEMORY",
    };
    return (unsigned)s < sizeof names / sizeof *names && names[s] ? names[s]
                                                                  : "TILE_ERROR_UNKNOWN";
}
