/*
 * select.c — configurations by name, and what bindings ask of a kernel.
 *
 * tile_kernel_select turns a "NAME=VALUE,..." string (the form
 * tile_interp_run's `config` option and tile_kernel_config_name give) into a
 * small integer, a selection: the set of configurations that agree with
 * every NAME=VALUE. Selections are made once (under the kernel's tune
 * lock) and kept for the bundle's lifetime, so that a launch with one
 * (tile_launch_select) tests one byte per configuration instead of
 * parsing text; asking again for the same string returns the same id.
 * The selection's configurations are the candidates, further narrowed by
 * @require for each launch; autotuning chooses among what remains.
 */
#include "runtime/rt.h"

#include <errno.h>
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

/* Does configuration c's NAME equal `value`? -1: no such NAME. */
static int agrees(const TileKernel *k, uint32_t c, const char *name, const char *value) {
    const TlbKernel *tk = k->k;
    const TlbConfig *cfg = &tk->configs[c];
    char *end;
    errno = 0;
    long long n = strtoll(value, &end, 0);
    int is_int = *value && !*end && !errno;
    if (!strcmp(name, "warps")) return is_int && n == cfg->warps;
    if (!strcmp(name, "stages")) return is_int && n == cfg->stages;
    for (uint32_t i = 0; i < tk->ncparams; i++) {
        const TlbCparam *cp = &tk->cparams[i];
        if (strcmp(cp->name, name)) continue;
        int64_t v = cfg->cvalues[i];
        if (cp->kind == TLB_CPARAM_TYPE) return !strcmp(tlb_type_name((TlbType)v), value);
        if (cp->kind == TLB_CPARAM_BOOL)
            return !strcmp(value, v ? "true" : "false") || (is_int && n == v);
        return is_int && n == v;
    }
    return -1;
}

/* Fills in[] from spec; TILE_OK or an error with its message. */
static TileStatus parse_spec(const TileKernel *k, const char *spec, uint8_t *in) {
    const TlbKernel *tk = k->k;
    for (uint32_t c = 0; c < tk->nconfigs; c++) in[c] = 1;
    char *copy = strdup(spec), *save = NULL;
    if (!copy)
        return rt_error(TILE_ERROR_OUT_OF_MEMORY, "kernel '%s': out of memory reading "
                        "the selection '%s'", tk->name, spec);
    TileStatus s = TILE_OK;
    for (char *item = strtok_r(copy, ",", &save); item && !s;
         item = strtok_r(NULL, ",", &save)) {
        while (*item == ' ') item++;
        char *eq = strchr(item, '=');
        if (!eq || eq == item) {
            s = rt_error(TILE_ERROR_INVALID_VALUE, "kernel '%s': invalid configuration "
                         "'%s' (expected NAME=VALUE,...)", tk->name, spec);
            break;
        }
        *eq = 0;
        for (uint32_t c = 0; c < tk->nconfigs && !s; c++) {
            int a = agrees(k, c, item, eq + 1);
            if (a < 0) {
                char names[256] = "";
                size_t used = 0;
                for (uint32_t i = 0; i < tk->ncparams && used < sizeof names; i++)
                    used += (size_t)snprintf(names + used, sizeof names - used, "%s, ",
                                             tk->cparams[i].name);
                s = rt_error(TILE_ERROR_INVALID_VALUE, "kernel '%s': no compile-time "
                             "parameter '%s' (configurations set %swarps, stages)",
                             tk->name, item, names);
            }
            in[c] &= a > 0;
        }
    }
    free(copy);
    if (s) return s;
    for (uint32_t c = 0; c < tk->nconfigs; c++)
        if (in[c]) return TILE_OK;
    char list[400] = "";
    size_t used = 0;
    for (uint32_t c = 0; c < tk->nconfigs && used < sizeof list; c++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", c ? "; " : "",
                                 k->config_names[c]);
    return rt_error(TILE_ERROR_NOT_FOUND, "kernel '%s' has no configuration '%s'; "
                    "available: %s", tk->name, spec, list);
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
