/*
 * plan.c — from the caller's arguments to what cuLaunchKernel needs,
 * without the driver.
 *
 * One pass over the parameters checks each argument's kind and value
 * against the signature and writes it, in the parameter's own
 * representation, into an 8-byte slot (the driver copies the first
 * sizeof(param) bytes of each slot: on a little-endian host an integer's
 * low bytes, a float's bits). The same pass gathers what specialization
 * needs: the largest power of two dividing each pointer and each
 * specializable integer, and each integer's value for the grid and
 * @require expressions.
 *
 * Then: the first configuration of the selection whose @require
 * expressions all hold (the order of the bundle; bundle/choose.c decides,
 * as it does for the interpreter, and words the message when none does;
 * tune.c may choose another candidate afterwards), its first variant
 * (the bundle lists them most specialized first) whose guard the
 * arguments meet (tlb_guard_holds: a multiple, or an integer equal to
 * 1), and the grid.
 *
 * Last, the chosen variant's tensor maps (TMA descriptors): each map's
 * base (its pointer argument), extents and strides evaluated from the
 * integer arguments, as cuTensorMapEncodeTiled will take them (launch.c
 * encodes them; a simulator reads them here).
 *
 * Error messages name the kernel, the argument (index from 0, name and
 * type) and the value; they are formatted only on failure.
 */
#include "runtime/rt.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

static const char *kind_name(TileLaunchArgKind k) {
    return k == TILE_LAUNCH_PTR ? "a pointer"
         : k == TILE_LAUNCH_INT ? "an integer"
         : k == TILE_LAUNCH_FLOAT ? "a float" : "of an unknown kind";
}

static const TileLaunchArgKind wanted[] = {
    [RT_PARAM_PTR] = TILE_LAUNCH_PTR, [RT_PARAM_INT] = TILE_LAUNCH_INT,
    [RT_PARAM_BOOL] = TILE_LAUNCH_INT, [RT_PARAM_FLOAT] = TILE_LAUNCH_FLOAT};

/* Bits of x in a binary format with `ebits` exponent and `mbits` fraction
 * bits, rounded to nearest even from the double itself (no double
 * rounding through f32). */
static uint16_t pack_small_float(double x, int ebits, int mbits) {
    uint16_t sign = signbit(x) ? (uint16_t)(1u << (ebits + mbits)) : 0;
    uint32_t emax = (1u << ebits) - 1;
    int bias = (1 << (ebits - 1)) - 1;
    if (isnan(x)) return (uint16_t)(sign | emax << mbits | 1u << (mbits - 1));
    double a = fabs(x);
    if (isinf(a)) return (uint16_t)(sign | emax << mbits);
    if (a == 0) return sign;
    int e;
    double m = frexp(a, &e);                   /* a = m 2^e, m in [0.5, 1) */
    int biased = e - 1 + bias;
    if (biased <= 0) {
        /* Subnormal: a in units of the smallest subnormal, 2^(1-bias-mbits).
         * A result of 2^mbits is the smallest normal, encoded alike. */
        return (uint16_t)(sign | (uint32_t)nearbyint(ldexp(a, bias + mbits - 1)));
    }
    uint64_t q = (uint64_t)nearbyint(ldexp(m, mbits + 1));   /* 2^mbits.. */
    if (q >> (mbits + 1)) {
        q >>= 1;
        biased++;
    }
    if (biased >= (int)emax) return (uint16_t)(sign | emax << mbits);
    return (uint16_t)(sign | (uint32_t)biased << mbits | (uint32_t)(q & ((1u << mbits) - 1)));
}

uint16_t rt_f16_bits(double x) { return pack_small_float(x, 5, 10); }
uint16_t rt_bf16_bits(double x) { return pack_small_float(x, 8, 7); }

static uint64_t float_slot(TlbType t, double f) {
    uint64_t slot = 0;
    if (t == TLB_F64) {
        memcpy(&slot, &f, 8);
    } else if (t == TLB_F32) {
        float v = (float)f;
        memcpy(&slot, &v, 4);
    } else {
        slot = t == TLB_F16 ? rt_f16_bits(f) : rt_bf16_bits(f);
    }
    return slot;
}

static TileStatus bad_arg(const TileKernel *k, int i, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static TileStatus bad_arg(const TileKernel *k, int i, const char *fmt, ...) {
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rt_error(TILE_ERROR_ARGUMENT, "kernel '%s': argument %d ('%s', %s) %s",
                    k->k->name, i, k->k->params[i].name, k->type_names[i], what);
}

/* log2 of the largest power of two dividing x, at most TLB_GUARD_MAX
 * (0 is a multiple of everything). */
static uint8_t mult_of(uint64_t x) {
    int n = x ? __builtin_ctzll(x) : (int)TLB_GUARD_MAX;
    return (uint8_t)(n < (int)TLB_GUARD_MAX ? n : (int)TLB_GUARD_MAX);
}

/* Checks and packs every argument into p->slots (what variant guards
 * are held against); p->mult gets each one's divisibility (tuning keys),
 * p->ints the integer values. */
TileStatus rt_pack(const TileKernel *k, const TileLaunchArg *args, int nargs, RtPlan *p) {
    const TlbKernel *tk = k->k;
    int64_t *ints = p->ints;
    if (nargs != (int)tk->nparams)
        return rt_error(TILE_ERROR_ARGUMENT, "kernel '%s' takes %u argument%s, got %d",
                        tk->name, tk->nparams, tk->nparams == 1 ? "" : "s", nargs);
    if (nargs && !args)
        return rt_error(TILE_ERROR_INVALID_VALUE, "kernel '%s': the argument array is NULL",
                        tk->name);
    for (int i = 0; i < nargs; i++) {
        const RtParam *rp = &k->params[i];
        const TileLaunchArg *a = &args[i];
        if (a->kind != wanted[rp->cls])
            return bad_arg(k, i, "must be %s, got %s", kind_name(wanted[rp->cls]),
                           kind_name(a->kind));
        switch ((RtParamClass)rp->cls) {
        case RT_PARAM_PTR:
            if (a->v.ptr % rp->elem_bytes)
                return bad_arg(k, i, "is 0x%" PRIx64 ", not aligned to its %u-byte "
                               "elements", a->v.ptr, rp->elem_bytes);
            p->mult[i] = mult_of(a->v.ptr);
            p->slots[i] = a->v.ptr;
            ints[i] = 0;
            break;
        case RT_PARAM_INT:
        case RT_PARAM_BOOL:
            if (a->v.i < rp->min || a->v.i > rp->max)
                return bad_arg(k, i, "is %" PRId64 ", which does not fit in %s", a->v.i,
                               k->type_names[i]);
            p->mult[i] = rp->specialize && rp->cls == RT_PARAM_INT ? mult_of((uint64_t)a->v.i)
                                                                   : 0;
            p->slots[i] = (uint64_t)a->v.i;
            ints[i] = a->v.i;
            break;
        case RT_PARAM_FLOAT:
            p->mult[i] = 0;
            p->slots[i] = float_slot((TlbType)rp->type, a->v.f);
            ints[i] = 0;
            break;
        }
    }
    return TILE_OK;
}

int rt_guard_fails(const TileKernel *k, const TlbVariant *v, const RtPlan *p) {
    for (uint32_t i = 0; i < k->k->nparams; i++)
        if (!tlb_guard_holds(v->guard[i], p->slots[i])) return (int)i;
    return -1;
}

int rt_config_holds(const TileKernel *k, uint32_t c, const RtPlan *p) {
    char err[TLB_CHOOSE_ERRLEN];
    int h = tlb_config_holds(k->k, c, p->ints, err, sizeof err);
    if (h < 0) rt_error(TILE_ERROR_NO_CONFIG, "%s", err);
    return h;
}

/* The first configuration of the selection whose @require holds
 * (bundle/choose.c, the interpreter's chooser too). */
static TileStatus pick_config(const TileKernel *k, int selection, RtPlan *p,
                              uint32_t *config) {
    const RtSelection *sel = selection ? &k->selections[selection] : NULL;
    char err[TLB_CHOOSE_ERRLEN];
    if (tlb_choose(k->k, sel ? sel->in : NULL, sel ? sel->spec : NULL, p->ints, config, err,
                   sizeof err))
        return rt_error(TILE_ERROR_NO_CONFIG, "%s", err);
    return TILE_OK;
}

static TileStatus compute_grid(const TileKernel *k, const uint32_t *given, RtPlan *p) {
    const int64_t *ints = p->ints;
    const TlbKernel *tk = k->k;
    static const int64_t limit[3] = {INT32_MAX, 65535, 65535};
    if (!given && tk->ngrid == 0)
        return rt_error(TILE_ERROR_GRID, "kernel '%s' has no grid(...) clause: launch "
                        "it with tile_launch_grid", tk->name);
    p->empty = 0;
    p->given = given != NULL;
    for (int d = 0; d < 3; d++) {
        int64_t v = 1;
        if (given) v = given[d];
        else if ((uint32_t)d < tk->ngrid && tlb_eval(&p->config->c->grid[d], ints, &v))
            return rt_error(TILE_ERROR_GRID, "kernel '%s': division by zero in grid "
                            "dimension %d", tk->name, d);
        if (v < 0 || v > limit[d])
            return rt_error(TILE_ERROR_GRID, "kernel '%s': grid dimension %d is %" PRId64
                            " (must be 0 to %" PRId64 ")", tk->name, d, v, limit[d]);
        p->grid[d] = (uint32_t)v;
        p->empty |= v == 0;
    }
    return TILE_OK;
}

int rt_tmap_data_type(TlbType t) {
    switch (t) {
    case TLB_U8: case TLB_I8: case TLB_F8E4M3: case TLB_F8E5M2:
        return CU_TENSOR_MAP_DATA_TYPE_UINT8;
    case TLB_U16: case TLB_I16: return CU_TENSOR_MAP_DATA_TYPE_UINT16;
    case TLB_I32: return CU_TENSOR_MAP_DATA_TYPE_INT32;
    case TLB_U32: return CU_TENSOR_MAP_DATA_TYPE_UINT32;
    case TLB_I64: return CU_TENSOR_MAP_DATA_TYPE_INT64;
    case TLB_U64: return CU_TENSOR_MAP_DATA_TYPE_UINT64;
    case TLB_F16: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case TLB_BF16: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case TLB_F32: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case TLB_F64: return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
    default: return -1;
    }
}

static TileStatus bad_tmap(const TileKernel *k, const RtPlan *p, uint32_t t,
                           const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static TileStatus bad_tmap(const TileKernel *k, const RtPlan *p, uint32_t t,
                           const char *fmt, ...) {
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const TlbVariant *v = p->variant->v;
    unsigned i = v->tmaps[t].param;
    return rt_error(TILE_ERROR_ARGUMENT, "kernel '%s': entry '%s': tensor map %u of argument "
                    "%u ('%s', %s): %s", k->k->name, v->entry, t, i, k->k->params[i].name,
                    k->type_names[i], what);
}

/* Dimension i of map t: its extent, clamped to [1, 2^32] (the compiler
 * keeps the coordinates of a clamped extent out of bounds itself). */
static TileStatus tmap_dim(const TileKernel *k, RtPlan *p, uint32_t t, uint32_t i) {
    int64_t x;
    if (tlb_eval(&p->variant->v->tmaps[t].dim[i], p->ints, &x))
        return bad_tmap(k, p, t, "division by zero in the extent of dimension %u", i);
    const int64_t max = INT64_C(1) << 32;
    /* a row map (the only maps of rank 1: the compiler's one-dimensional
     * view of a 2-D tensor, docs/bundle.md) is addressed by 32-bit
     * coordinates up to a slot's width past the last row's start, and
     * its extent is 2^40 where the row stride is below 1 */
    const int64_t row_max = (INT64_C(1) << 31) - (INT64_C(1) << 16);
    if (p->variant->v->tmaps[t].rank == 1 && x >= row_max)
        return bad_tmap(k, p, t, "a row map's extent is %" PRId64 " elements (its row stride "
                        "below 1, or not below 2^31 - 2^16 elements)", x);
    p->tmap[t].dim[i] = (uint64_t)(x < 1 ? 1 : x > max ? max : x);
    return TILE_OK;
}

/* Stride i (of dimension i + 1) of map t, in bytes: at least 1 element, a
 * multiple of 16 bytes, below 2^40 bytes. */
static TileStatus tmap_stride(const TileKernel *k, RtPlan *p, uint32_t t, uint32_t i) {
    const TlbTmap *m = &p->variant->v->tmaps[t];
    int64_t x;
    uint64_t eb = (uint64_t)tlb_type_bytes((TlbType)m->elem);
    if (tlb_eval(&m->stride[i], p->ints, &x))
        return bad_tmap(k, p, t, "division by zero in the stride of dimension %u", i + 1);
    if (x < 1)
        return bad_tmap(k, p, t, "the stride of dimension %u is %" PRId64 " elements (must "
                        "be at least 1)", i + 1, x);
    if ((uint64_t)x >= (UINT64_C(1) << 40) / eb)
        return bad_tmap(k, p, t, "the stride of dimension %u is %" PRId64 " elements of %u "
                        "bytes (must be below 2^40 bytes)", i + 1, x, (unsigned)eb);
    if ((uint64_t)x * eb % 16)
        return bad_tmap(k, p, t, "the stride of dimension %u is %" PRId64 " elements = %"
                        PRIu64 " bytes, not a multiple of 16", i + 1, x, (uint64_t)x * eb);
    p->tmap[t].stride[i] = (uint64_t)x * eb;
    return TILE_OK;
}

TileStatus rt_plan_tmaps(const TileKernel *k, RtPlan *p) {
    const TlbVariant *v = p->variant->v;
    p->ntmaps = v->ntmaps;
    for (uint32_t t = 0; t < v->ntmaps; t++) {
        const TlbTmap *m = &v->tmaps[t];
        RtTmapArgs *a = &p->tmap[t];
        memset(a, 0, sizeof *a);
        a->base = p->slots[m->param];
        if (a->base % 16)
            return bad_tmap(k, p, t, "its base address 0x%" PRIx64 " is not 16-byte aligned",
                            a->base);
        TileStatus s = TILE_OK;
        for (uint32_t i = 0; i < m->rank && !s; i++) s = tmap_dim(k, p, t, i);
        for (uint32_t i = 0; i + 1 < m->rank && !s; i++) s = tmap_stride(k, p, t, i);
        if (s) return s;
    }
    return TILE_OK;
}

TileStatus rt_plan_config(const TileKernel *k, uint32_t c, const uint32_t *grid, RtPlan *p) {
    p->config = &k->configs[c];
    TileStatus s = compute_grid(k, grid, p);
    if (s) return s;
    const RtConfig *rc = p->config;
    TileStatus maps = TILE_OK;   /* of the first variant whose maps cannot be */
    for (uint32_t i = 0; i < rc->nvariants; i++)
        if (rt_guard_fails(k, rc->variants[i].v, p) < 0) {
            p->variant = &rc->variants[i];
            p->ntmaps = 0;   /* an empty grid launches nothing: no maps */
            if (p->empty) return TILE_OK;
            /* maps that cannot be encoded for these arguments (a stride
             * below 1, say) leave the variant to the next one */
            if (!(s = rt_plan_tmaps(k, p))) return TILE_OK;
            if (!maps) maps = s;
        }
    if (maps) return maps;
    const TlbVariant *last = rc->variants[rc->nvariants - 1].v;
    int i = rt_guard_fails(k, last, p);
    uint8_t g = last->guard[i];
    return rt_error(TILE_ERROR_ARGUMENT, "kernel '%s': configuration %u has no variant "
                    "for these arguments (argument %d, '%s', must be %s %llu%s)",
                    k->k->name, c, i, k->k->params[i].name,
                    g == TLB_GUARD_ONE ? "equal to"
                    : k->params[i].cls == RT_PARAM_PTR ? "aligned to" : "a multiple of",
                    g == TLB_GUARD_ONE ? 1ull : 1ull << g,
                    k->params[i].cls == RT_PARAM_PTR ? " bytes" : "");
}

TileStatus rt_plan(const TileKernel *k, const uint32_t *grid, const TileLaunchArg *args,
                   int nargs, RtPlan *p) {
    return rt_plan_select(k, 0, grid, args, nargs, p);
}

TileStatus rt_plan_select(const TileKernel *k, int selection, const uint32_t *grid,
                          const TileLaunchArg *args, int nargs, RtPlan *p) {
    TileStatus s = rt_pack(k, args, nargs, p);
    uint32_t c = 0;
    if (!s && (k->has_require || selection)) s = pick_config(k, selection, p, &c);
    return s ? s : rt_plan_config(k, c, grid, p);
}

int rt_carveout_percent(uint32_t blocks, uint32_t block, uint32_t sm) {
    if (!sm) return 100;
    uint64_t pct = ((uint64_t)blocks * block * 100 + sm - 1) / sm;
    return pct > 100 ? 100 : (int)pct;
}
