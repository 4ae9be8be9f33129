/*
 * select.c — configurations by name, and what bindings ask of a kernel.
 *
 * tile_kernel_select turns a "NAME=VALUE,..." string (the form
 * tile_interp_run's `config` option and tile_kernel_config_name give) into a
 * small integer, a selection: the set of configurations that agree with
 * every NAME=VALUE (the rules and messages are bundle/choose.c's, the
 * interpreter's too). Selections are made once (under the kernel's tune
 * lock) and kept for the bundle's lifetime, so that a launch with one
 * (tile_launch_select) tests one byte per configuration instead of
 * parsing text; asking again for the same string returns the same id.
 * The selection's configurations are the candidates, further narrowed by
 * @require for each launch; autotuning chooses among what remains.
 */
#include "runtime/rt.h"

#include <stdlib.h>
#include <string.h>

int tile_kernel_nconfigs(const TileKernel *k) { return k ? (int)k->k->nconfigs : 0; }

const char *tile_kernel_config_name(const TileKernel *k, int i) {
    return k && i >= 0 && (uint32_t)i < k->k->nconfigs ? k->config_names[i] : NULL;
}

int tile_kernel_grid_dims(const TileKernel *k) { return k ? (int)k->k->ngrid : -1; }

int tile_kernel_param_stored(const TileKernel *k, int i) {
    if (!k || i < 0 || (uint32_t)i >= k->k->nparams) return -1;
    return (k->k->params[i].flags & TLB_PARAM_STORED) != 0;
}

/* Fills in[] from spec (bundle/choose.c); TILE_OK or an error with its
 * message. */
static TileStatus parse_spec(const TileKernel *k, const char *spec, uint8_t *in) {
    char err[TLB_CHOOSE_ERRLEN];
    switch (tlb_select(k->k, spec, in, err, sizeof err)) {
    case TLB_CHOICE_OK: return TILE_OK;
    case TLB_CHOICE_NONE_SELECTED: return rt_error(TILE_ERROR_NOT_FOUND, "%s", err);
    case TLB_CHOICE_NO_MEMORY: return rt_error(TILE_ERROR_OUT_OF_MEMORY, "%s", err);
    default: return rt_error(TILE_ERROR_INVALID_VALUE, "%s", err);
    }
}

TileStatus tile_kernel_select(TileKernel *k, const char *spec, int *selection) {
    if (!k || !selection)
        return rt_error(TILE_ERROR_INVALID_VALUE, "tile_kernel_select: NULL argument");
    *selection = 0;
    if (!spec || !*spec) return TILE_OK;
    pthread_mutex_lock(&k->tune_lock);
    int n = atomic_load_explicit(&k->nselections, memory_order_relaxed);
    TileStatus s = TILE_OK;
    for (int i = 1; i < n; i++)
        if (!strcmp(k->selections[i].spec, spec)) {
            *selection = i;
            goto done;
        }
    if (n == RT_MAX_SELECTIONS) {
        s = rt_error(TILE_ERROR_INVALID_VALUE, "kernel '%s': more than %d different "
                     "configuration selections", k->k->name, RT_MAX_SELECTIONS - 1);
        goto done;
    }
    RtSelection *sel = &k->selections[n];
    sel->in = calloc(k->k->nconfigs, 1);
    sel->spec = strdup(spec);
    if (!sel->in || !sel->spec)
        s = rt_error(TILE_ERROR_OUT_OF_MEMORY, "kernel '%s': out of memory making the "
                     "selection '%s'", k->k->name, spec);
    if (!s) s = parse_spec(k, spec, sel->in);
    if (s) {
        free(sel->in);
        free(sel->spec);
        *sel = (RtSelection){0};
        goto done;
    }
    atomic_store_explicit(&k->nselections, n + 1, memory_order_release);
    *selection = n;
done:
    pthread_mutex_unlock(&k->tune_lock);
    return s;
}
