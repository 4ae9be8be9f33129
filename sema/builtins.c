/*
 * builtins.c — the builtin functions, one table row each.
 *
 * A row names the builtin, spells its parameters ("p, mask?, other?" —
 * `?` optional, `...` a variadic tail) and points at a handler. Argument
 * binding is shared: positional arguments fill parameters in order, named
 * ones by name; unknown, repeated, missing and surplus arguments are
 * reported here, once, for every builtin alike. An absent optional argument
 * (or an explicit `None`) arrives as SV_NONE. Handlers then check kinds,
 * shapes and element types with a small set of helpers (want_*), each of
 * which names the builtin and the argument in its message, and finally emit
 * IR.
 *
 * Transcendental math on f16/bf16 runs in f32 (cast, op, cast back), so
 * those IR ops only ever see f32 or f64 — the same contract libdevice has.
 */
#include "sm.h"
#include "libdevice.h"

#include <math.h>
#include <string.h>

typedef struct Builtin Builtin;
typedef SmVal (*Handler)(SmCtx *c, const Builtin *b, const AstExpr *call,
                         SmVal *a);

struct Builtin {
    const char *name;
    const char *params;
    Handler fn;
    int op;      /* IrOpcode, ReduceKind or AtomicKind, per handler */
    int pure;    /* no effect: an unused result is worth a warning */
};

#define MAXP 8

/* ------------------------------------------------------------- helpers */

typedef struct Param {
    char name[24];
    int optional, variadic;
} Param;

static int parse_params(const char *spec, Param *p) {
    int n = 0;
    while (*spec) {
        while (*spec == ' ' || *spec == ',') spec++;
        if (!*spec) break;
        size_t len = strcspn(spec, ",?.");
        memset(&p[n], 0, sizeof p[n]);
        memcpy(p[n].name, spec, len);
        spec += len;
        if (*spec == '?') p[n].optional = 1, spec++;
        if (*spec == '.') p[n].variadic = 1, spec += 3;
        n++;
    }
    return n;
}


static int absent(const SmVal *v) { return v->kind == SV_NONE; }

static int want_value(SmCtx *c, const Builtin *b, const SmVal *v,
                      const char *arg) {
    (void)b;
    (void)arg;
    return v->kind != SV_POISON && sm_check_value(c, v);
}

/* A runtime or constant value whose element type passes `ok`. */
static int want_kind(SmCtx *c, const Builtin *b, const SmVal *v,
                     const char *arg, int (*ok)(ScalarKind), const char *desc) {
    if (!want_value(c, b, v, arg)) return 0;
    if (ok(sm_type_of(v).k)) return 1;
    dg_error(c->dg, v->loc, "argument '%s' of '%s' must be %s, got '%s'", arg,
             b->name, desc, sm_describe(c, v));
    return 0;
}

static int is_float(ScalarKind k) { return ty_isfloat(k); }
static int is_int(ScalarKind k) { return ty_isint(k); }
static int is_bool(ScalarKind k) { return k == SK_BOOL; }
static int is_ptr(ScalarKind k) { return k == SK_PTR; }
static int is_numeric(ScalarKind k) { return ty_isint(k) || ty_isfloat(k); }
static int is_numeric_or_bool(ScalarKind k) { return k != SK_PTR && k != SK_VOID; }

static int want_type(SmCtx *c, const Builtin *b, const SmVal *v,
                     const char *arg, ScalarKind *out) {
    if (v->kind == SV_POISON) return 0;
    if (v->kind != SV_TYPE) {
        dg_error(c->dg, v->loc, "argument '%s' of '%s' must be a type such as "
                 "'f32', got '%s'", arg, b->name, sm_describe(c, v));
        return 0;
    }
    *out = (ScalarKind)v->k;
    return 1;
}

static int want_int(SmCtx *c, const Builtin *b, const SmVal *v,
                    const char *arg, int64_t *out) {
    const char *what = ar_printf(c->ar, "argument '%s' of '%s'", arg, b->name);
    return sm_const_int_arg(c, v, what, out);
}

static int want_str(SmCtx *c, const Builtin *b, const SmVal *v,
                    const char *arg) {
    if (v->kind == SV_POISON) return 0;
    if (v->kind == SV_STR) return 1;
    dg_error(c->dg, v->loc, "argument '%s' of '%s' must be a string literal, "
             "got '%s'", arg, b->name, sm_describe(c, v));
    return 0;
}

static int want_string(SmCtx *c, const Builtin *b, const SmVal *v,
                       const char *arg, const char *const *choices,
                       int *out) {
    if (v->kind == SV_POISON) return 0;
    if (v->kind == SV_STR)
        for (int i = 0; choices[i]; i++)
            if (choices[i][0] && strcmp(v->s, choices[i]) == 0) {
                *out = i;
                return 1;
            }
    Buf list = {0};
    for (int i = 0, n = 0; choices[i]; i++)
        if (choices[i][0]) buf_printf(&list, "%s\"%s\"", n++ ? ", " : "", choices[i]);
    dg_error(c->dg, v->loc, "argument '%s' of '%s' must be one of %s", arg,
             b->name, list.s);
    buf_free(&list);
    return 0;
}

/* A shape: [d0, d1, ...] of compile-time powers of two (or one integer). */
static int want_shape(SmCtx *c, const Builtin *b, const SmVal *v,
                      const char *arg, Type *out) {
    if (v->kind == SV_POISON) return 0;
    int n = v->kind == SV_LIST ? v->n : 1;
    const SmVal *items = v->kind == SV_LIST ? v->items : v;
    if (v->kind != SV_LIST && v->kind != SV_CONST) {
        dg_error(c->dg, v->loc, "argument '%s' of '%s' must be a shape such as "
                 "[64, 32], got %s", arg, b->name, sm_describe(c, v));
        return 0;
    }
    int32_t dims[IR_MAXRANK] = {0};
    if (n > IR_MAXRANK) return sm_check_shape(c, v->loc, n, dims);
    for (int i = 0; i < n; i++) {
        int64_t d;
        if (!want_int(c, b, &items[i], arg, &d)) return 0;
        if (d != (int32_t)d || d < 1) {
            dg_error(c->dg, items[i].loc, "tile dimension %lld is not positive",
                     (long long)d);
            return 0;
        }
        dims[i] = (int32_t)d;
    }
    if (!sm_check_shape(c, v->loc, n, dims)) return 0;
    *out = ty_tile(ty_scalar(SK_VOID), n, dims);
    return 1;
}

static int want_axis(SmCtx *c, const Builtin *b, const SmVal *v, int rank,
                     int *out) {
    int64_t ax;
    if (!want_int(c, b, v, "axis", &ax)) return 0;
    if (ax < -rank || ax >= rank) {
        if (rank == 0)
            dg_error(c->dg, v->loc, "'%s' has no axis %lld to work on: its "
                     "argument is a scalar", b->name, (long long)ax);
        else
            dg_error(c->dg, v->loc, "axis %lld is out of range for a rank-%d "
                     "tile in '%s'", (long long)ax, rank, b->name);
        return 0;
    }
    *out = (int)(ax < 0 ? ax + rank : ax);
    return 1;
}

static int want_bool_const(SmCtx *c, const Builtin *b, const SmVal *v,
                           const char *arg, int *out) {
    if (v->kind == SV_POISON) return 0;
    if (v->kind != SV_CONST || v->k != SK_BOOL) {
        dg_error(c->dg, v->loc, "argument '%s' of '%s' must be a compile-time "
                 "bool, got %s", arg, b->name, v->kind == SV_VAL
                     ? "a runtime value" : ar_printf(c->ar, "'%s'", sm_describe(c, v)));
        return 0;
    }
    *out = (int)v->i;
    return 1;
}

/* The common kind of n operands (literals adapt), or SK_VOID after an
 * error about a literal that does not fit. */
static ScalarKind promote_n(SmCtx *c, SmVal *v, int n) {
    SmVal acc = v[0];
    for (int i = 1; i < n; i++) {
        ScalarKind k = sm_promote_weak(&acc, &v[i]);
        int weak = acc.kind == SV_CONST && acc.weak && v[i].kind == SV_CONST &&
                   v[i].weak;
        acc = ty_isfloat(k) ? sm_const_float(k, 0, weak, acc.loc)
                            : sm_const_int(k, 0, weak, acc.loc);
        if (!weak) acc.weak = 0, acc.k = (uint8_t)k;
    }
    ScalarKind k = sm_type_of(&acc).k;
    for (int i = 0; i < n; i++)
        if (!sm_const_fits(&v[i], k)) {
            dg_error(c->dg, v[i].loc, "integer literal %lld does not fit in '%s'",
                     (long long)v[i].i, ty_kind_name(k));
            return SK_VOID;
        }
    return k;
}

/* The shape v[0..n) broadcast to together, in *shape; 0 after an error
 * at loc naming every operand of builtin `name`. */
static int common_shape(SmCtx *c, const char *name, Loc loc, const SmVal *v,
                        int n, Type *shape) {
    *shape = ty_scalar(SK_VOID);
    for (int i = 0; i < n; i++)
        if (!sm_broadcast_shape(*shape, sm_type_of(&v[i]), shape)) {
            Buf l = {0};
            for (int j = 0; j < n; j++)
                buf_printf(&l, "%s'%s'", !j ? "" : j == n - 1 ? " and " : ", ",
                           sm_describe(c, &v[j]));
            dg_error(c->dg, loc, "incompatible shapes in '%s': %s", name, l.s);
            buf_free(&l);
            return 0;
        }
    return 1;
}

/* t broadcasts to exactly `shape` (not to a larger one). */
static int broadcasts_to(Type t, Type shape) {
    Type out;
    return sm_broadcast_shape(shape, t, &out) && ty_same_shape(out, shape);
}

/* Converts v[0..n) to kind k and broadcasts them to one shape. */
static int unify(SmCtx *c, const Builtin *b, const AstExpr *call, SmVal *v,
                 int n, ScalarKind k, IrValue **out) {
    Type shape;
    if (!common_shape(c, b->name, call->loc, v, n, &shape)) return 0;
    c->b.loc = call->loc;
    for (int i = 0; i < n; i++)
        out[i] = sm_broadcast_to(c, sm_convert(c, &v[i], k), shape);
    return 1;
}

static Type shape_kind(Type shape, ScalarKind k) { return sm_with_kind(shape, k); }

/* Runs op in f32 for f16/bf16 operands (cast, op, cast back); the op
 * gets sattr (NULL but for libdevice). */
static IrValue *in_f32(SmCtx *c, IrOpcode op, IrValue **x, int n,
                       const char *sattr) {
    ScalarKind k = x[0]->ty.k;
    int up = k == SK_F16 || k == SK_BF16;
    IrValue *a[3] = {0};
    for (int i = 0; i < n; i++) a[i] = up ? sm_cast(c, x[i], SK_F32) : x[i];
    IrValue *r = sm_emit1(c, op, a[0]->ty, a[0], a[1], a[2]);
    r->def->sattr = sattr;
    return up ? sm_cast(c, r, k) : r;
}

/* Marks the kernel parameters a stored-through pointer derives from. */
static void mark_stored(SmCtx *c, IrValue *p, char *seen) {
    if (p->id >= c->b.k->nvalues || seen[p->id]) return;
    seen[p->id] = 1;
    if (!p->def) {
        IrBlock *blk = p->block;
        if (blk == c->b.k->body) {
            c->b.k->params[p->index].stored = 1;
            return;
        }
        IrOp *own = blk->parent;
        if (!own) return;
        int carried = own->op == IR_FOR ? p->index - 1 : p->index;
        int first = own->op == IR_FOR ? 3 : 0;
        if (carried >= 0 && first + carried < own->nargs)
            mark_stored(c, own->args[first + carried], seen);
        if (blk->last && carried >= 0 && blk->last->nargs > carried)
            mark_stored(c, blk->last->args[carried + (blk->last->op == IR_CONDITION)], seen);
        return;
    }
    IrOp *op = p->def;
    switch (op->op) {
    case IR_PTRADD: case IR_SPLAT: case IR_BROADCAST: case IR_EXPAND_DIMS:
    case IR_RESHAPE: case IR_PERMUTE: case IR_MULTIPLE_OF: case IR_MAX_CONTIG:
        mark_stored(c, op->args[0], seen);
        return;
    case IR_SELECT:
        mark_stored(c, op->args[1], seen);
        mark_stored(c, op->args[2], seen);
        return;
    case IR_FOR: case IR_IF: case IR_WHILE:
        if (op->op == IR_FOR && 3 + p->index < op->nargs)
            mark_stored(c, op->args[3 + p->index], seen);
        if (op->op == IR_WHILE && p->index < op->nargs)
            mark_stored(c, op->args[p->index], seen);
        for (int r = 0; r < op->nregions; r++) {
            IrOp *last = op->regions[r]->last;
            int off = last && last->op == IR_CONDITION;
            if (last && off + p->index < last->nargs)
                mark_stored(c, last->args[off + p->index], seen);
        }
        return;
    default: return;
    }
}

static void stored_through(SmCtx *c, IrValue *p) {
    char *seen = ar_alloc(c->ar, (size_t)c->b.k->nvalues + 1);
    mark_stored(c, p, seen);
}

/* --------------------------------------------------------- program ids */

/* program_id(axis), num_programs(axis) */
static SmVal bi_program(SmCtx *c, const Builtin *b, const AstExpr *call,
                        SmVal *a) {
    int64_t ax;
    if (!want_int(c, b, &a[0], "axis", &ax)) return sm_poison();
    if (ax < 0 || ax > 2) {
        dg_error(c->dg, a[0].loc, "axis of '%s' must be 0, 1 or 2, got %lld",
                 b->name, (long long)ax);
        return sm_poison();
    }
    c->b.loc = call->loc;
    IrValue *v = sm_emit1(c, (IrOpcode)b->op, ty_scalar(SK_I32), NULL, NULL, NULL);
    v->def->iattr[0] = ax;
    return sm_val(v, call->loc);
}

/* ------------------------------------------------------------ creation */

/* arange(lo, hi) */
static SmVal bi_arange(SmCtx *c, const Builtin *b, const AstExpr *call,
                       SmVal *a) {
    int64_t lo, hi;
    int ok = want_int(c, b, &a[0], "lo", &lo);
    ok &= want_int(c, b, &a[1], "hi", &hi);
    if (!ok) return sm_poison();
    if (lo < INT32_MIN || hi > INT32_MAX || hi <= lo) {
        dg_error(c->dg, call->loc, "'arange(%lld, %lld)' must have a positive "
                 "number of elements, not %lld", (long long)lo,
                 (long long)hi, (long long)(hi - lo));
        return sm_poison();
    }
    int32_t n = (int32_t)(hi - lo);
    if (!sm_check_shape(c, call->loc, 1, &n)) return sm_poison();
    c->b.loc = call->loc;
    IrValue *v = sm_emit1(c, IR_ARANGE, ty_tile(ty_scalar(SK_I32), 1, &n),
                          NULL, NULL, NULL);
    v->def->iattr[0] = lo;
    v->def->iattr[1] = hi;
    return sm_val(v, call->loc);
}

static SmVal filled(SmCtx *c, Loc loc, Type t, const SmVal *value) {
    c->b.loc = loc;
    IrValue *s = sm_materialize(c, value, (ScalarKind)t.k);
    return sm_val(t.rank ? sm_emit1(c, IR_SPLAT, t, s, NULL, NULL) : s, loc);
}

/* zeros(shape, dtype), full(shape, value, dtype) */
static SmVal bi_full(SmCtx *c, const Builtin *b, const AstExpr *call,
                     SmVal *a) {
    int zeros = b->op == 0;
    Type shape;
    ScalarKind k;
    SmVal *value = zeros ? NULL : &a[1];
    int ok = want_shape(c, b, &a[0], "shape", &shape);
    ok &= want_type(c, b, &a[zeros ? 1 : 2], "dtype", &k);
    if (value && want_value(c, b, value, "value") &&
        (sm_type_of(value).rank || sm_type_of(value).k == SK_PTR)) {
        dg_error(c->dg, value->loc, "argument 'value' of 'full' must be a "
                 "scalar, got '%s'", sm_describe(c, value));
        ok = 0;
    }
    if (!ok || (value && !sm_is_value(value))) return sm_poison();
    SmVal zero = sm_const_int(SK_I32, 0, 1, call->loc);
    return filled(c, call->loc, shape_kind(shape, k), value ? value : &zero);
}

/* zeros_like(x) */
static SmVal bi_zeros_like(SmCtx *c, const Builtin *b, const AstExpr *call,
                           SmVal *a) {
    if (!want_kind(c, b, &a[0], "x", is_numeric_or_bool, "a numeric tile"))
        return sm_poison();
    SmVal zero = sm_const_int(SK_I32, 0, 1, call->loc);
    Type t = sm_type_of(&a[0]);
    if (a[0].kind == SV_CONST && a[0].weak) t.k = a[0].k;
    return filled(c, call->loc, t, &zero);
}

/* -------------------------------------------------------------- memory */

/* Converts v to the pointee type and the shape of pointer tile pt. */
static IrValue *fit_to_ptr(SmCtx *c, const Builtin *b, const AstExpr *call,
                           SmVal *v, Type pt, const char *arg, int is_mask) {
    if (!want_value(c, b, v, arg)) return NULL;
    Type vt = sm_type_of(v);
    ScalarKind k = is_mask ? SK_BOOL : (ScalarKind)pt.pointee;
    if (is_mask && vt.k != SK_BOOL) {
        dg_error(c->dg, v->loc, "'%s' of '%s' must be bool, got '%s'", arg,
                 b->name, sm_describe(c, v));
        return NULL;
    }
    if (!is_mask && !sm_implicit_ok(v, k)) {
        if (vt.k == SK_PTR || k == SK_BOOL)
            dg_error(c->dg, v->loc, "'%s' of '%s' must be '%s', got '%s'", arg,
                     b->name, ty_kind_name(k), sm_describe(c, v));
        else if (sm_const_fits(v, k))
            dg_error(c->dg, v->loc, "'%s' of '%s' would narrow '%s' to '%s'; "
                     "convert it explicitly with 'as %s'", arg, b->name,
                     sm_describe(c, v), ty_kind_name(k), ty_kind_name(k));
        else
            dg_error(c->dg, v->loc, "integer literal %lld does not fit in '%s'",
                     (long long)v->i, ty_kind_name(k));
        return NULL;
    }
    if (!broadcasts_to(vt, pt)) {
        dg_error(c->dg, v->loc, "'%s' of '%s' has shape '%s', which does not "
                 "broadcast to the pointer shape '%s'", arg, b->name,
                 sm_describe(c, v), ty_str(c->ar, pt));
        return NULL;
    }
    (void)call;
    c->b.loc = v->loc;
    return sm_broadcast_to(c, sm_convert(c, v, k), pt);
}

static int want_pointer(SmCtx *c, const Builtin *b, const SmVal *p) {
    return want_kind(c, b, p, "p", is_ptr, "a pointer or a tile of pointers");
}

/* load(p, mask=, other=, cache=, evict=) */
static SmVal bi_load(SmCtx *c, const Builtin *b, const AstExpr *call,
                     SmVal *a) {
    static const char *const caches[] = {"", "ca", "cg", "cs", "cv", NULL};
    static const char *const evicts[] = {"normal", "first", "last", NULL};
    if (!want_pointer(c, b, &a[0])) return sm_poison();
    Type pt = sm_type_of(&a[0]);
    IrValue *args[3] = {a[0].kind == SV_VAL ? a[0].v : NULL};
    int n = 1, flags = 0, cache = 0, evict = 0, ok = 1;
    if (!absent(&a[1])) {
        args[n] = fit_to_ptr(c, b, call, &a[1], pt, "mask", 1);
        ok &= args[n++] != NULL;
        flags |= LOAD_MASK;
    }
    if (!absent(&a[2])) {
        if (absent(&a[1])) {
            dg_error(c->dg, a[2].loc, "'other' of 'load' needs a 'mask'");
            return sm_poison();
        }
        args[n] = fit_to_ptr(c, b, call, &a[2], pt, "other", 0);
        ok &= args[n++] != NULL;
        flags |= LOAD_OTHER;
    }
    if (!absent(&a[3])) ok &= want_string(c, b, &a[3], "cache", caches, &cache);
    if (!absent(&a[4])) ok &= want_string(c, b, &a[4], "evict", evicts, &evict);
    if (!ok) return sm_poison();
    c->b.loc = call->loc;
    Type rt = shape_kind(pt, (ScalarKind)pt.pointee);
    IrOp *op = ir_emit(&c->b, IR_LOAD, 1, &rt, n, args);
    op->iattr[0] = flags;
    op->iattr[1] = cache;
    op->iattr[2] = evict;
    return sm_val(op->res[0], call->loc);
}

/* store(p, value, mask=) and atomic_*(p, value, mask=) */
static SmVal bi_store(SmCtx *c, const Builtin *b, const AstExpr *call,
                      SmVal *a) {
    int atomic = b->op >= 0;
    if (!want_pointer(c, b, &a[0])) return sm_poison();
    Type pt = sm_type_of(&a[0]);
    ScalarKind pk = (ScalarKind)pt.pointee;
    if (atomic && (pk == SK_BOOL || (b->op != ATOM_XCHG && ty_bits(pk) < 32))) {
        dg_error(c->dg, a[0].loc, "'%s' does not support '%s' memory", b->name,
                 ty_kind_name(pk));
        return sm_poison();
    }
    IrValue *args[3] = {a[0].v, fit_to_ptr(c, b, call, &a[1], pt, "value", 0)};
    int n = 2;
    if (!absent(&a[2])) {
        args[2] = fit_to_ptr(c, b, call, &a[2], pt, "mask", 1);
        if (!args[2]) return sm_poison();
        n = 3;
    }
    if (!args[1]) return sm_poison();
    c->b.loc = call->loc;
    stored_through(c, a[0].v);
    if (!atomic) {
        ir_emit(&c->b, IR_STORE, 0, NULL, n, args);
        return sm_void(b->name, call->loc);
    }
    Type rt = shape_kind(pt, pk);
    IrOp *op = ir_emit(&c->b, IR_ATOMIC, 1, &rt, n, args);
    op->iattr[0] = b->op;
    return sm_val(op->res[0], call->loc);
}

/* atomic_cas(p, cmp, value) */
static SmVal bi_cas(SmCtx *c, const Builtin *b, const AstExpr *call,
                    SmVal *a) {
    if (!want_pointer(c, b, &a[0])) return sm_poison();
    Type pt = sm_type_of(&a[0]);
    ScalarKind pk = (ScalarKind)pt.pointee;
    if (ty_bits(pk) < 16 || pk == SK_BOOL) {
        dg_error(c->dg, a[0].loc, "'%s' does not support '%s' memory", b->name,
                 ty_kind_name(pk));
        return sm_poison();
    }
    IrValue *args[3] = {a[0].v, fit_to_ptr(c, b, call, &a[1], pt, "cmp", 0),
                        fit_to_ptr(c, b, call, &a[2], pt, "value", 0)};
    if (!args[1] || !args[2]) return sm_poison();
    c->b.loc = call->loc;
    stored_through(c, a[0].v);
    Type rt = shape_kind(pt, pk);
    return sm_val(ir_emit(&c->b, IR_ATOMIC_CAS, 1, &rt, 3, args)->res[0],
                  call->loc);
}

/* -------------------------------------------------------------- matrix */

/* dot's out_dtype= (absent: f32, i32 for i8 operands) for operands of
 * kind `in`: f16 operands may also accumulate in f16 (tensor cores with
 * f16 accumulators); every other operand type has its one result type. */
static int want_dot_out(SmCtx *c, const Builtin *b, const SmVal *v,
                        ScalarKind in, ScalarKind *k) {
    ScalarKind def = in == SK_I8 ? SK_I32 : SK_F32;
    if (absent(v)) {
        *k = def;
        return 1;
    }
    if (!want_type(c, b, v, "out_dtype", k)) return 0;
    if (*k == def || (in == SK_F16 && *k == SK_F16)) return 1;
    const char *ok = in == SK_F16 ? "f32 or f16" : ty_kind_name(def);
    dg_error(c->dg, v->loc, "argument 'out_dtype' of 'dot' must be %s for %s "
             "operands, got '%s'; accumulate in %s and narrow the result with "
             "'as %s'", ok, ty_kind_name(in), ty_kind_name(*k), ty_kind_name(def),
             ty_kind_name(*k));
    return 0;
}

/* v is the constant zero, splat or broadcast. */
static int is_zero(const IrValue *v) {
    const IrOp *op = v->def;
    while (op && (op->op == IR_SPLAT || op->op == IR_BROADCAST || op->op == IR_CAST))
        op = op->args[0]->def;
    return op && op->op == IR_CONST &&
           (ty_isfloat(op->res[0]->ty.k) ? op->fattr == 0.0 : op->iattr[0] == 0);
}

/* v is loaded from memory (through conversions and permutes) with no
 * `other` but zero: the lowering then holds zeros in the padding of a
 * padded tile (its loads are masked there), so a product over a padded
 * K adds nothing for it. */
static int zero_padded(const IrValue *v) {
    const IrOp *op = v->def;
    while (op && (op->op == IR_CAST || op->op == IR_PERMUTE)) op = op->args[0]->def;
    if (!op || op->op != IR_LOAD) return 0;
    return !(op->iattr[0] & LOAD_OTHER) || is_zero(op->args[op->nargs - 1]);
}

/* dot(a, b, acc=, precision=, out_dtype=) */
static SmVal bi_dot(SmCtx *c, const Builtin *b, const AstExpr *call,
                    SmVal *a) {
    static const char *const precisions[] = {"tf32", "ieee", NULL};
    int ok = want_value(c, b, &a[0], "a");
    ok &= want_value(c, b, &a[1], "b");
    if (!ok) return sm_poison();
    Type ta = sm_type_of(&a[0]), tb = sm_type_of(&a[1]);
    for (int i = 0; i < 2; i++) {
        Type t = i ? tb : ta;
        if (t.rank != 2) {
            dg_error(c->dg, a[i].loc, "operands of 'dot' must be 2-D tiles, got "
                     "'%s'", sm_describe(c, &a[i]));
            return sm_poison();
        }
        if (t.k != SK_F16 && t.k != SK_BF16 && t.k != SK_F32 && t.k != SK_I8 &&
            !ty_isf8(t.k)) {
            dg_error(c->dg, a[i].loc, "'dot' takes f16, bf16, f32, i8, f8e4m3 or f8e5m2 "
                     "operands, got '%s'", sm_describe(c, &a[i]));
            return sm_poison();
        }
    }
    if (ta.k != tb.k && !(ty_isf8(ta.k) && ty_isf8(tb.k))) {   /* e4m3 x e5m2: as wgmma */
        dg_error(c->dg, call->loc, "operands of 'dot' must have one element "
                 "type, got '%s' and '%s'; convert one with 'as'",
                 ty_kind_name(ta.k), ty_kind_name(tb.k));
        return sm_poison();
    }
    int32_t M = ta.dim[0], K = ta.dim[1], N = tb.dim[1];
    if (tb.dim[0] != K) {
        dg_error(c->dg, call->loc, "inner dimensions of 'dot' differ: '%s' and "
                 "'%s'", sm_describe(c, &a[0]), sm_describe(c, &a[1]));
        return sm_poison();
    }
    if (M < 16 || N < 16 || K < 16) {
        dg_error(c->dg, call->loc, "'dot' needs M, N and K of at least 16, got "
                 "M=%d, N=%d, K=%d", M, N, K);
        return sm_poison();
    }
    for (int i = 0; i < 2 && !is_pow2(K); i++)
        if (!zero_padded(a[i].v)) {   /* the padding along K would enter the sums */
            dg_error(c->dg, a[i].loc, "'dot' with K=%d, not a power of two, takes "
                     "operands loaded from memory (without other=, or other=0), "
                     "converted with 'as' or 'trans' at most: the padding to K=%d "
                     "must hold zeros, got '%s'", K, (int)pow2_ceil(K),
                     sm_describe(c, &a[i]));
            return sm_poison();
        }
    int32_t mn[2] = {M, N};
    ScalarKind outk;
    if (!want_dot_out(c, b, &a[4], (ScalarKind)ta.k, &outk)) return sm_poison();
    Type rt = ty_tile(ty_scalar(outk), 2, mn);
    int ieee = 0;
    if (!absent(&a[3]) && !want_string(c, b, &a[3], "precision", precisions, &ieee))
        return sm_poison();
    c->b.loc = call->loc;
    IrValue *acc;
    if (absent(&a[2])) {
        SmVal zero = sm_const_int(SK_I32, 0, 1, call->loc);
        acc = filled(c, call->loc, rt, &zero).v;
    } else {
        if (!want_value(c, b, &a[2], "acc")) return sm_poison();
        Type tacc = sm_type_of(&a[2]);
        if (!ty_eq(tacc, rt)) {
            int f16 = ta.k == SK_F16 && tacc.k == SK_F16 && absent(&a[4]);
            dg_error(c->dg, a[2].loc, "'acc' of 'dot' must be '%s', got '%s'%s",
                     ty_str(c->ar, rt), sm_describe(c, &a[2]),
                     f16 ? "; f16 accumulators need out_dtype=f16" : "");
            return sm_poison();
        }
        acc = a[2].v;
    }
    c->b.loc = call->loc;
    IrValue *r = sm_emit1(c, IR_DOT, rt, a[0].v, a[1].v, acc);
    r->def->iattr[0] = ieee;
    return sm_val(r, call->loc);
}

/* -------------------------------------------------------------- reduce */

/* The element type a sum or cumsum accumulates in. */
static ScalarKind sum_kind(ScalarKind k) {
    if (k == SK_BOOL || (ty_isint(k) && ty_bits(k) < 32 && ty_issigned(k)))
        return SK_I32;
    if (ty_isint(k) && ty_bits(k) < 32) return SK_U32;
    return k;
}

static IrValue *as_ir(SmCtx *c, SmVal *v) {
    return v->kind == SV_VAL ? v->v : sm_materialize(c, v, sm_type_of(v).k);
}

/* sum's dtype= (absent: sum_kind of x's type): a type sum_kind gives,
 * the types the reductions accumulate in. */
static int want_sum_dtype(SmCtx *c, const Builtin *b, const SmVal *v,
                          ScalarKind from, ScalarKind *k) {
    if (absent(v)) {
        *k = sum_kind(from);
        return 1;
    }
    if (!want_type(c, b, v, "dtype", k)) return 0;
    if (*k != SK_BOOL && *k != SK_PTR && sum_kind(*k) == *k) return 1;
    dg_error(c->dg, v->loc, "argument 'dtype' of 'sum' must be a type to "
             "accumulate in: i32, u32, i64, u64, f16, bf16, f32 or f64, got "
             "'%s'; narrow the result with 'as %s'", ty_kind_name(*k),
             ty_kind_name(*k));
    return 0;
}

/* ------------------------------------------------------------ combiners */

/* An op the combiner of reduce/scan may hold: scalar arithmetic,
 * comparisons, casts, selects and control flow (IR_ADD..IR_CEIL are the
 * element-wise ops, ir.h). */
static int combiner_op(int op) {
    return (op >= IR_ADD && op <= IR_CEIL) || op == IR_CONST || op == IR_CAST ||
           op == IR_FMA || op == IR_SELECT || op == IR_FOR || op == IR_IF ||
           op == IR_WHILE || op == IR_YIELD || op == IR_CONDITION;
}

/* Reports the first op of blk (and its regions) a combiner may not hold. */
static int scalar_only(SmCtx *c, const Builtin *b, const SmVal *fn, const IrBlock *blk) {
    for (const IrOp *op = blk->first; op; op = op->next) {
        int tile = op->nres && op->res[0]->ty.rank > 0;
        if (tile || !combiner_op(op->op)) {
            dg_error(c->dg, op->loc, "the combiner '%s' of '%s' may only compute "
                     "on its two scalars (arithmetic, comparisons, casts, "
                     "'where', control flow), not %s", fn->s, b->name,
                     tile ? "make a tile" : ar_printf(c->ar, "'%s'", ir_op_name[op->op]));
            dg_note(c->dg, fn->loc, "'%s' is the combiner of this '%s'", fn->s, b->name);
            return 0;
        }
        for (int r = 0; r < op->nregions; r++)
            if (!scalar_only(c, b, fn, op->regions[r])) return 0;
    }
    return 1;
}

/* Makes region 0 of op the combiner f (a fn named as an argument) on
 * two scalars of kind k: the region's arguments (a, b), f inlined on
 * them, and a yield of its result, which must convert to k implicitly. */
static int combiner(SmCtx *c, const Builtin *b, IrOp *op, const SmVal *f, ScalarKind k) {
    if (f->kind != SV_FN) {
        dg_error(c->dg, f->loc, "argument 'combine' of '%s' must name a fn of "
                 "two scalars, got '%s'", b->name, sm_describe(c, f));
        return 0;
    }
    SmGlobal *g = sm_lookup_global(c, f->s);
    if (g->item->nparams != 2) {
        dg_error(c->dg, f->loc, "the combiner '%s' of '%s' must take two "
                 "parameters, not %d", f->s, b->name, g->item->nparams);
        dg_note(c->dg, g->item->nloc, "'%s' is declared here", f->s);
        return 0;
    }
    Type st[2] = {ty_scalar(k), ty_scalar(k)};
    ir_add_regions(&c->b, op, 1);
    IrBlock *blk = ir_block(&c->b, 2, st), *outer = c->b.blk;
    blk->parent = op;
    op->regions[0] = blk;
    c->b.blk = blk;
    AstExpr arg = {.kind = E_NAME, .loc = f->loc};
    AstExpr *argv[2] = {&arg, &arg};
    AstExpr call = {.kind = E_CALL, .loc = f->loc, .nloc = f->loc, .name = f->s,
                    .args = argv, .nargs = 2};
    SmVal in[2] = {sm_val(blk->args[0], f->loc), sm_val(blk->args[1], f->loc)};
    SmVal r = sm_inline(c, g, &call, in);
    int ok = r.kind != SV_POISON && sm_check_value(c, &r);
    if (ok && (sm_type_of(&r).rank || !sm_implicit_ok(&r, k))) {
        dg_error(c->dg, f->loc, "the combiner '%s' of '%s' must return a scalar "
                 "of its operands' type '%s', got '%s'", f->s, b->name,
                 ty_kind_name(k), sm_describe(c, &r));
        ok = 0;
    }
    if (ok) {
        c->b.loc = f->loc;
        IrValue *y = sm_convert(c, &r, k);
        ir_emit(&c->b, IR_YIELD, 0, NULL, 1, &y);
        ok = scalar_only(c, b, f, blk);
    }
    c->b.blk = outer;
    return ok;
}

/* reduce(x) of kind `kind` along axis, to elements of kind rk */
static IrValue *reduce_ir(SmCtx *c, IrValue *x, int kind, int axis, ScalarKind rk) {
    Type rt = sm_with_kind(x->ty, rk);
    memmove(rt.dim + axis, rt.dim + axis + 1, sizeof(int32_t) * (size_t)(rt.rank - axis - 1));
    rt.dim[--rt.rank] = 0;
    IrValue *r = sm_emit1(c, IR_REDUCE, rt, x, NULL, NULL);
    r->def->iattr[0] = kind;
    r->def->iattr[1] = axis;
    return r;
}

/* sum/max/min/argmax/argmin(x, axis=, keepdims=false), sum's dtype= (in
 * a[3]); reduce(x, axis, combine, keepdims=false) with its combine fn
 * `fn` (a[1] axis, a[2] keepdims here too) */
static SmVal reduce_along(SmCtx *c, const Builtin *b, const AstExpr *call,
                          SmVal *a, const SmVal *fn) {
    int (*ok)(ScalarKind) = b->op == RED_SUM || fn ? is_numeric_or_bool : is_numeric;
    if (!want_kind(c, b, &a[0], "x", ok,
                   ok == is_numeric ? "a numeric tile" : "a numeric or bool tile"))
        return sm_poison();
    Type t = sm_type_of(&a[0]);
    int axis = -1, keep = 0;
    ScalarKind k = t.k;
    if (!absent(&a[1]) && !want_axis(c, b, &a[1], t.rank, &axis)) return sm_poison();
    if (!absent(&a[2]) && !want_bool_const(c, b, &a[2], "keepdims", &keep))
        return sm_poison();
    if (b->op == RED_SUM && !want_sum_dtype(c, b, &a[3], t.k, &k))
        return sm_poison();
    c->b.loc = call->loc;
    IrValue *x = sm_cast(c, as_ir(c, &a[0]), k);
    Type orig = x->ty;
    int arg = b->op == RED_ARGMAX || b->op == RED_ARGMIN;
    if (axis < 0) {
        if (t.rank == 0) {
            if (arg) return sm_val(ir_const_int(&c->b, ty_scalar(SK_I32), 0), call->loc);
            return sm_val(x, call->loc);
        }
        /* a padded tile does not flatten by a reshape (its padding would
         * interleave with the elements): sum, max and min reduce one axis
         * at a time, the last first */
        if (t.rank > 1 && ty_padded(t) && (arg || fn)) {
            dg_error(c->dg, call->loc, "'%s' over every element of '%s' needs an "
                     "axis: its extents are not all powers of two", b->name,
                     sm_describe(c, &a[0]));
            return sm_poison();
        }
        if (t.rank > 1 && !ty_padded(t)) {
            int32_t n = (int32_t)ty_numel(t);
            x = sm_emit1(c, IR_RESHAPE, ty_tile(x->ty, 1, &n), x, NULL, NULL);
        }
        while (x->ty.rank > 1) x = reduce_ir(c, x, b->op, x->ty.rank - 1, x->ty.k);
    }
    int ax = axis < 0 ? 0 : axis;
    if (fn && !is_pow2(x->ty.dim[ax])) {
        dg_error(c->dg, call->loc, "'%s' with a combiner along an axis of %d: an "
                 "axis whose extent is not a power of two takes sum, max, min, "
                 "argmax or argmin only", b->name, x->ty.dim[ax]);
        return sm_poison();
    }
    IrValue *r = reduce_ir(c, x, b->op, ax, arg ? SK_I32 : (ScalarKind)x->ty.k);
    if (fn && !combiner(c, b, r->def, fn, k)) return sm_poison();
    c->b.loc = call->loc;
    if (keep && axis >= 0) {
        Type kt = sm_with_kind(orig, r->ty.k);
        kt.dim[axis] = 1;
        r = sm_emit1(c, IR_EXPAND_DIMS, kt, r, NULL, NULL);
        r->def->iattr[0] = axis;
    } else if (keep) {
        Type kt = sm_with_kind(orig, r->ty.k);
        for (int i = 0; i < kt.rank; i++) kt.dim[i] = 1;
        r = sm_emit1(c, IR_RESHAPE, kt, r, NULL, NULL);
    }
    return sm_val(r, call->loc);
}

static SmVal bi_reduce(SmCtx *c, const Builtin *b, const AstExpr *call,
                       SmVal *a) {
    return reduce_along(c, b, call, a, NULL);
}

/* reduce(x, axis, combine, keepdims=false) */
static SmVal bi_reduce_fn(SmCtx *c, const Builtin *b, const AstExpr *call,
                          SmVal *a) {
    SmVal r[4] = {a[0], a[1], a[3], a[4]};
    return reduce_along(c, b, call, r, &a[2]);
}

/* cumsum/cumprod/cummax/cummin(x, axis=0); scan(x, axis, combine) */
static SmVal bi_scan(SmCtx *c, const Builtin *b, const AstExpr *call,
                     SmVal *a) {
    int mm = b->op == SCAN_MAX || b->op == SCAN_MIN, fn = b->op == SCAN_FN;
    if (!want_kind(c, b, &a[0], "x", mm ? is_numeric : is_numeric_or_bool,
                   mm ? "a numeric tile" : "a numeric or bool tile"))
        return sm_poison();
    Type t = sm_type_of(&a[0]);
    int axis = 0;
    if (t.rank == 0) {
        dg_error(c->dg, a[0].loc, "'%s' needs a tile, got a scalar '%s'", b->name,
                 sm_describe(c, &a[0]));
        return sm_poison();
    }
    if (!absent(&a[1]) && !want_axis(c, b, &a[1], t.rank, &axis)) return sm_poison();
    c->b.loc = call->loc;
    ScalarKind k = mm || fn ? (ScalarKind)t.k : sum_kind(t.k);
    IrValue *x = sm_cast(c, a[0].v, k);
    IrValue *r = sm_emit1(c, IR_SCAN, x->ty, x, NULL, NULL);
    r->def->iattr[0] = axis;
    r->def->iattr[1] = b->op;
    if (fn && !combiner(c, b, r->def, &a[2], k)) return sm_poison();
    return sm_val(r, call->loc);
}

/* --------------------------------------------------------- element-wise */

SmVal sm_where(SmCtx *c, SmVal cond, SmVal x, SmVal y, Loc loc) {
    static const Builtin w = {"where", "", NULL, 0, 1};
    int ok = want_kind(c, &w, &cond, "condition", is_bool, "bool");
    ok &= want_value(c, &w, &x, "x");
    ok &= want_value(c, &w, &y, "y");
    if (!ok) return sm_poison();
    SmVal v[3] = {cond, x, y};
    ScalarKind k;
    if (sm_type_of(&x).k == SK_PTR || sm_type_of(&y).k == SK_PTR) {
        if (!ty_eq(ty_elem(sm_type_of(&x)), ty_elem(sm_type_of(&y)))) {
            dg_error(c->dg, loc, "'where' operands have different types '%s' and "
                     "'%s'", sm_describe(c, &x), sm_describe(c, &y));
            return sm_poison();
        }
        k = SK_PTR;
    } else if ((k = promote_n(c, v + 1, 2)) == SK_VOID) {
        return sm_poison();
    }
    if (cond.kind == SV_CONST) return cond.i ? x : y;
    Type shape;
    if (!common_shape(c, "where", loc, v, 3, &shape)) return sm_poison();
    c->b.loc = loc;
    IrValue *a[3];
    for (int i = 0; i < 3; i++) {
        IrValue *iv = k == SK_PTR && i ? v[i].v
                    : sm_convert(c, &v[i], i ? k : SK_BOOL);
        a[i] = sm_broadcast_to(c, iv, shape);
    }
    Type rt = a[1]->ty;
    return sm_val(sm_emit1(c, IR_SELECT, rt, a[0], a[1], a[2]), loc);
}

static SmVal bi_where(SmCtx *c, const Builtin *b, const AstExpr *call,
                      SmVal *a) {
    (void)b;
    return sm_where(c, a[0], a[1], a[2], call->loc);
}

/* maximum, minimum, fma, pow, atan2, umulhi, clamp: n operands promoted to
 * one kind, broadcast to one shape. */
static int operands(SmCtx *c, const Builtin *b, const AstExpr *call,
                    SmVal *a, int n, int (*ok)(ScalarKind), const char *desc,
                    IrValue **out, ScalarKind *kind) {
    Param names[MAXP];
    parse_params(b->params, names);
    int good = 1;
    for (int i = 0; i < n; i++)
        good &= want_kind(c, b, &a[i], names[i].name, is_numeric_or_bool,
                          "a numeric tile");
    if (!good) return 0;
    ScalarKind k = promote_n(c, a, n);
    if (k == SK_VOID) return 0;
    if (ok == is_float && ty_isint(k)) k = SK_F32;  /* math on ints: f32 */
    if (!ok(k)) {
        Buf l = {0};
        for (int j = 0; j < n; j++)
            buf_printf(&l, "%s'%s'", j ? ", " : "", sm_describe(c, &a[j]));
        dg_error(c->dg, call->loc, "'%s' requires %s operands, got %s", b->name,
                 desc, l.s);
        buf_free(&l);
        return 0;
    }
    *kind = k;
    return unify(c, b, call, a, n, k, out);
}

static SmVal bi_minmax(SmCtx *c, const Builtin *b, const AstExpr *call,
                       SmVal *a) {
    IrValue *x[2];
    ScalarKind k;
    if (!operands(c, b, call, a, 2, is_numeric, "numeric", x, &k)) return sm_poison();
    return sm_val(sm_emit1(c, (IrOpcode)b->op, x[0]->ty, x[0], x[1], NULL),
                  call->loc);
}

/* clamp(x, lo, hi) = minimum(maximum(x, lo), hi) */
static SmVal bi_clamp(SmCtx *c, const Builtin *b, const AstExpr *call,
                      SmVal *a) {
    IrValue *x[3];
    ScalarKind k;
    if (!operands(c, b, call, a, 3, is_numeric, "numeric", x, &k)) return sm_poison();
    IrValue *lo = sm_emit1(c, IR_MAX, x[0]->ty, x[0], x[1], NULL);
    return sm_val(sm_emit1(c, IR_MIN, x[0]->ty, lo, x[2], NULL), call->loc);
}

static SmVal bi_fma_pow(SmCtx *c, const Builtin *b, const AstExpr *call,
                        SmVal *a) {
    int n = b->op == IR_FMA ? 3 : 2;   /* fma, pow, atan2 */
    IrValue *x[3];
    ScalarKind k;
    if (!operands(c, b, call, a, n, is_float, "floating-point", x, &k))
        return sm_poison();
    return sm_val(in_f32(c, (IrOpcode)b->op, x, n, NULL), call->loc);
}

static int is_32bit_int(ScalarKind k) { return k == SK_I32 || k == SK_U32; }

static SmVal bi_umulhi(SmCtx *c, const Builtin *b, const AstExpr *call,
                       SmVal *a) {
    IrValue *x[2];
    ScalarKind k;
    if (!operands(c, b, call, a, 2, is_32bit_int, "i32 or u32", x, &k))
        return sm_poison();
    return sm_val(sm_emit1(c, IR_UMULHI, x[0]->ty, x[0], x[1], NULL), call->loc);
}

/* cdiv(x, y) = (x + y - 1) / y, folded when both are constants. */
static SmVal bi_cdiv(SmCtx *c, const Builtin *b, const AstExpr *call,
                     SmVal *a) {
    for (int i = 0; i < 2; i++)
        if (!want_kind(c, b, &a[i], i ? "y" : "x", is_int, "an integer"))
            return sm_poison();
    SmVal one = sm_const_int(SK_I32, 1, 1, call->loc);
    SmVal bm1 = sm_binary(c, OP_SUB, a[1], one, call->loc);
    SmVal sum = sm_binary(c, OP_ADD, a[0], bm1, call->loc);
    return sm_binary(c, OP_DIV, sum, a[1], call->loc);
}

/* A floating-point operand (a literal adapts), else an error. */
static int want_float(SmCtx *c, const Builtin *b, const SmVal *v) {
    if (ty_isfloat(sm_type_of(v).k) || (v->kind == SV_CONST && v->weak)) return 1;
    dg_error(c->dg, v->loc, "'%s' requires a floating-point operand, got "
             "'%s'; convert it with 'as f32'", b->name, sm_describe(c, v));
    return 0;
}

/* The float operand x of a one-operand math function; a weak constant
 * becomes f32. */
static int float_operand(SmCtx *c, const Builtin *b, const AstExpr *call,
                         SmVal *v, IrValue **x) {
    if (!want_value(c, b, v, "x") || !want_float(c, b, v)) return 0;
    c->b.loc = call->loc;
    *x = sm_convert(c, v, v->kind == SV_CONST && v->weak ? SK_F32
                                                        : sm_type_of(v).k);
    return 1;
}

/* abs, exp, exp2, log, log2, sqrt, rsqrt, sin, cos, tan, tanh, erf, floor,
 * ceil, trunc, round, rint */
static SmVal bi_math(SmCtx *c, const Builtin *b, const AstExpr *call,
                     SmVal *a) {
    if (!want_value(c, b, &a[0], "x")) return sm_poison();
    ScalarKind k = sm_type_of(&a[0]).k;
    if (b->op == IR_ABS && ty_isint(k) && !(a[0].kind == SV_CONST && a[0].weak)) {
        /* integer abs: where(x < 0, -x, x) */
        SmVal zero = sm_const_int(SK_I32, 0, 1, call->loc);
        SmVal neg = sm_binary(c, OP_LT, a[0], zero, call->loc);
        return sm_where(c, neg, sm_unary(c, OP_NEG, a[0], call->loc), a[0],
                        call->loc);
    }
    IrValue *x;
    if (!float_operand(c, b, call, &a[0], &x)) return sm_poison();
    return sm_val(in_f32(c, (IrOpcode)b->op, &x, 1, NULL), call->loc);
}

/* libdevice("name", x[, y]): the function of sema/libdevice.h's table,
 * its operands checked as those of the math builtins of as many operands
 * (messages name it libdevice("name")). */
static SmVal bi_libdevice(SmCtx *c, const Builtin *b, const AstExpr *call,
                          SmVal *a) {
    if (!want_str(c, b, &a[0], "name")) return sm_poison();
    const LdFn *ld = ld_find(a[0].s);
    if (!ld) {
        char names[512];
        ld_names(names, sizeof names);
        dg_error(c->dg, a[0].loc, "unknown libdevice function \"%s\"; "
                 "'libdevice' supports %s (docs/language.md lists them)",
                 a[0].s, names);
        return sm_poison();
    }
    int given = absent(&a[2]) ? 1 : 2;
    if (given != ld->nargs) {
        dg_error(c->dg, call->loc, "libdevice function \"%s\" takes %d "
                 "operand%s after its name, got %d", ld->name, ld->nargs,
                 ld->nargs == 1 ? "" : "s", given);
        return sm_poison();
    }
    Builtin sub = {ar_printf(c->ar, "libdevice(\"%s\")", ld->name),
                   ld->nargs == 1 ? "x" : "x, y", NULL, IR_LIBDEVICE, 1};
    IrValue *x[2];
    ScalarKind k;
    if (ld->nargs == 1 ? !float_operand(c, &sub, call, &a[1], &x[0])
                       : !operands(c, &sub, call, a + 1, 2, is_float,
                                   "floating-point", x, &k))
        return sm_poison();
    return sm_val(in_f32(c, IR_LIBDEVICE, x, ld->nargs, ld->name), call->loc);
}

/* isnan(x) is x != x; isinf(x) is x == inf | x == -inf: bool, x's shape. */
static SmVal bi_isclass(SmCtx *c, const Builtin *b, const AstExpr *call,
                        SmVal *a) {
    if (!want_value(c, b, &a[0], "x") || !want_float(c, b, &a[0]))
        return sm_poison();
    if (b->op == 0) return sm_binary(c, OP_NE, a[0], a[0], call->loc);
    SmVal inf = sm_const_float(SK_F32, INFINITY, 1, call->loc);
    SmVal ninf = sm_const_float(SK_F32, -INFINITY, 1, call->loc);
    SmVal pos = sm_binary(c, OP_EQ, a[0], inf, call->loc);
    SmVal neg = sm_binary(c, OP_EQ, a[0], ninf, call->loc);
    return sm_binary(c, OP_OR, pos, neg, call->loc);
}

/* The type a literal argument of bitcast takes: an integer literal the
 * integer type of `to`'s width (signed if it fits), a float literal the
 * float type of that width; SK_VOID when there is none. */
static ScalarKind literal_kind(const SmVal *v, ScalarKind to) {
    static const ScalarKind ints[] = {SK_I8, SK_U8, SK_I16, SK_U16, SK_I32,
                                      SK_U32, SK_I64, SK_U64};
    static const ScalarKind floats[] = {SK_F16, SK_F32, SK_F64};
    int isf = ty_isfloat((ScalarKind)v->k);
    const ScalarKind *ks = isf ? floats : ints;
    size_t n = isf ? sizeof floats / sizeof *floats : sizeof ints / sizeof *ints;
    for (size_t i = 0; i < n; i++)
        if (ty_bits(ks[i]) == ty_bits(to) && (isf || sm_const_fits(v, ks[i])))
            return ks[i];
    return SK_VOID;
}

/* bitcast(x, dtype): x's bits read as dtype, an integer or float type of
 * the same width. */
static SmVal bi_bitcast(SmCtx *c, const Builtin *b, const AstExpr *call,
                        SmVal *a) {
    ScalarKind to;
    int ok = want_kind(c, b, &a[0], "x", is_numeric, "a numeric tile");
    ok &= want_type(c, b, &a[1], "dtype", &to);
    if (!ok) return sm_poison();
    int weak = a[0].kind == SV_CONST && a[0].weak;
    ScalarKind from = weak ? literal_kind(&a[0], to) : sm_type_of(&a[0]).k;
    if (!is_numeric(to) || from == SK_VOID || ty_bits(from) != ty_bits(to)) {
        const char *what = from == SK_VOID ? "a literal"
                         : ar_printf(c->ar, "'%s' (%d bits)", ty_kind_name(from),
                                     ty_bits(from));
        dg_error(c->dg, call->loc, "cannot bitcast %s to '%s'%s: the bits are "
                 "kept, so the types must be integers or floats of one width; "
                 "to convert the value, write 'x as %s'", what,
                 ty_kind_name(to), is_numeric(to) ? ar_printf(c->ar, " (%d bits)",
                 ty_bits(to)) : "", ty_kind_name(to));
        return sm_poison();
    }
    c->b.loc = call->loc;
    IrValue *x = sm_convert(c, &a[0], from);
    if (from == to) return sm_val(x, call->loc);
    return sm_val(sm_emit1(c, IR_BITCAST, sm_with_kind(x->ty, to), x, NULL,
                           NULL), call->loc);
}

/* --------------------------------------------------------------- shape */

static SmVal bi_reshape(SmCtx *c, const Builtin *b, const AstExpr *call,
                        SmVal *a) {
    Type shape;
    int ok = want_kind(c, b, &a[0], "x", is_numeric_or_bool, "a tile");
    ok &= want_shape(c, b, &a[1], "shape", &shape);
    if (!ok) return sm_poison();
    Type t = sm_type_of(&a[0]);
    if (ty_numel(t) != ty_numel(shape)) {
        dg_error(c->dg, call->loc, "cannot reshape '%s' (%lld elements) to '%s' "
                 "(%lld elements)", sm_describe(c, &a[0]), (long long)ty_numel(t),
                 ty_str(c->ar, sm_with_kind(shape, t.k)), (long long)ty_numel(shape));
        return sm_poison();
    }
    if (!ty_reshape_in_place(t, shape)) {
        dg_error(c->dg, call->loc, "cannot reshape '%s' to '%s' yet: a tile whose "
                 "extents are not all powers of two is laid out padded, and this "
                 "reshape would move its elements (it may add or drop axes of 1, "
                 "and split or merge power-of-two inner axes)", sm_describe(c, &a[0]),
                 ty_str(c->ar, sm_with_kind(shape, t.k)));
        return sm_poison();
    }
    c->b.loc = call->loc;
    IrValue *x = as_ir(c, &a[0]);
    Type rt = sm_with_kind(shape, t.k);
    if (ty_same_shape(rt, t)) return sm_val(x, call->loc);
    return sm_val(sm_emit1(c, IR_RESHAPE, rt, x, NULL, NULL), call->loc);
}

static SmVal permute(SmCtx *c, const AstExpr *call, IrValue *x,
                     const int *perm) {
    Type rt = x->ty;
    for (int i = 0; i < rt.rank; i++) rt.dim[i] = x->ty.dim[perm[i]];
    c->b.loc = call->loc;
    IrValue *r = sm_emit1(c, IR_PERMUTE, rt, x, NULL, NULL);
    for (int i = 0; i < rt.rank; i++) r->def->iattr[i] = perm[i];
    return sm_val(r, call->loc);
}

static SmVal bi_trans(SmCtx *c, const Builtin *b, const AstExpr *call,
                      SmVal *a) {
    if (!want_value(c, b, &a[0], "x")) return sm_poison();
    if (sm_type_of(&a[0]).rank != 2) {
        dg_error(c->dg, a[0].loc, "'trans' requires a 2-D tile, got '%s'; use "
                 "'permute' for other ranks", sm_describe(c, &a[0]));
        return sm_poison();
    }
    static const int swap[2] = {1, 0};
    return permute(c, call, a[0].v, swap);
}

static SmVal bi_permute(SmCtx *c, const Builtin *b, const AstExpr *call,
                        SmVal *a) {
    if (!want_value(c, b, &a[0], "x")) return sm_poison();
    int rank = sm_type_of(&a[0]).rank, perm[IR_MAXRANK], seen = 0;
    int ok = a[1].kind == SV_LIST && a[1].n == rank;
    for (int i = 0; ok && i < rank; i++) {
        int64_t d;
        ok = a[1].items[i].kind == SV_CONST && ty_isint(a[1].items[i].k) &&
             (d = a[1].items[i].i) >= 0 && d < rank && !(seen & (1 << d));
        if (ok) {
            perm[i] = (int)d;
            seen |= 1 << d;
        }
    }
    if (a[1].kind == SV_POISON) return sm_poison();
    if (!ok || rank == 0) {
        dg_error(c->dg, a[1].loc, "argument 'dims' of 'permute' must be a "
                 "permutation of the %d axes of '%s', such as [%s]", rank,
                 sm_describe(c, &a[0]), rank == 3 ? "2, 0, 1" : rank == 2 ? "1, 0" : "0");
        return sm_poison();
    }
    return permute(c, call, a[0].v, perm);
}

static SmVal bi_broadcast_to(SmCtx *c, const Builtin *b, const AstExpr *call,
                             SmVal *a) {
    Type shape;
    int ok = want_kind(c, b, &a[0], "x", is_numeric_or_bool, "a tile");
    ok &= want_shape(c, b, &a[1], "shape", &shape);
    if (!ok) return sm_poison();
    Type t = sm_type_of(&a[0]);
    if (!broadcasts_to(t, shape)) {
        dg_error(c->dg, call->loc, "cannot broadcast '%s' to shape '%s'",
                 sm_describe(c, &a[0]), ty_str(c->ar, sm_with_kind(shape, t.k)));
        return sm_poison();
    }
    c->b.loc = call->loc;
    return sm_val(sm_broadcast_to(c, as_ir(c, &a[0]), shape), call->loc);
}

static SmVal bi_expand_dims(SmCtx *c, const Builtin *b, const AstExpr *call,
                            SmVal *a) {
    int64_t ax;
    if (!want_value(c, b, &a[0], "x") || !want_int(c, b, &a[1], "axis", &ax))
        return sm_poison();
    Type t = sm_type_of(&a[0]);
    if (ax < -(t.rank + 1) || ax > t.rank) {
        dg_error(c->dg, a[1].loc, "axis %lld of 'expand_dims' is out of range "
                 "for a rank-%d tile (the new axis goes at 0..%d)", (long long)ax,
                 t.rank, t.rank);
        return sm_poison();
    }
    int axis = (int)(ax < 0 ? ax + t.rank + 1 : ax);
    if (t.rank + 1 > IR_MAXRANK) {
        dg_error(c->dg, call->loc, "tiles have at most %d dimensions", IR_MAXRANK);
        return sm_poison();
    }
    c->b.loc = call->loc;
    IrValue *x = as_ir(c, &a[0]);
    Type rt = x->ty;
    memmove(rt.dim + axis + 1, rt.dim + axis, sizeof(int32_t) * (size_t)(rt.rank - axis));
    rt.dim[axis] = 1;
    rt.rank++;
    IrValue *r = sm_emit1(c, IR_EXPAND_DIMS, rt, x, NULL, NULL);
    r->def->iattr[0] = axis;
    return sm_val(r, call->loc);
}

/* --------------------------------------------------------------- hints */

/* ------------------------------------------------ joining and gathering */

/* a[0], a[1]: numeric or bool, promoted to one kind and broadcast to
 * one shape, of rank at least `rank`. */
static int two_tiles(SmCtx *c, const Builtin *b, const AstExpr *call, SmVal *a,
                     int rank, IrValue **out) {
    int ok = want_kind(c, b, &a[0], "a", is_numeric_or_bool, "a numeric or bool tile");
    ok &= want_kind(c, b, &a[1], "b", is_numeric_or_bool, "a numeric or bool tile");
    ScalarKind k = ok ? promote_n(c, a, 2) : SK_VOID;
    if (k == SK_VOID || !unify(c, b, call, a, 2, k, out)) return 0;
    if (out[0]->ty.rank < rank) {
        dg_error(c->dg, call->loc, "'%s' needs tiles, got scalars '%s'", b->name,
                 ty_kind_name(k));
        return 0;
    }
    return 1;
}

/* x then y along axis (one shape), or NULL after an error. */
static IrValue *cat_ir(SmCtx *c, Loc loc, IrValue *x, IrValue *y, int axis) {
    Type r = x->ty;
    r.dim[axis] *= 2;
    if (!sm_check_shape(c, loc, r.rank, r.dim)) return NULL;
    IrValue *v = sm_emit1(c, IR_CAT, r, x, y, NULL);
    v->def->iattr[0] = axis;
    return v;
}

/* cat(a, b, axis=0) */
static SmVal bi_cat(SmCtx *c, const Builtin *b, const AstExpr *call, SmVal *a) {
    IrValue *x[2], *r;
    int axis = 0;
    if (!two_tiles(c, b, call, a, 1, x)) return sm_poison();
    if (!absent(&a[2]) && !want_axis(c, b, &a[2], x[0]->ty.rank, &axis)) return sm_poison();
    c->b.loc = call->loc;
    return (r = cat_ir(c, call->loc, x[0], x[1], axis)) ? sm_val(r, call->loc) : sm_poison();
}

/* join(a, b): [..., 2], a at 0 and b at 1 of a new last axis;
 * interleave(a, b): the same read as [..., 2n]: a[0], b[0], a[1], ... */
static SmVal bi_join(SmCtx *c, const Builtin *b, const AstExpr *call, SmVal *a) {
    IrValue *x[2];
    if (!two_tiles(c, b, call, a, b->op, x)) return sm_poison();
    Type t = x[0]->ty;
    if (t.rank + 1 > IR_MAXRANK) {
        dg_error(c->dg, call->loc, "tiles have at most %d dimensions", IR_MAXRANK);
        return sm_poison();
    }
    c->b.loc = call->loc;
    for (int i = 0; i < 2; i++) {
        Type e = t;
        e.dim[e.rank++] = 1;
        x[i] = sm_emit1(c, IR_EXPAND_DIMS, e, x[i], NULL, NULL);
        x[i]->def->iattr[0] = t.rank;
    }
    IrValue *r = cat_ir(c, call->loc, x[0], x[1], t.rank);
    if (r && b->op) {   /* interleave */
        t.dim[t.rank - 1] *= 2;
        r = sm_emit1(c, IR_RESHAPE, t, r, NULL, NULL);
    }
    return r ? sm_val(r, call->loc) : sm_poison();
}

/* gather(src, index, axis): result[i] = src[i with index[i] along axis] */
static SmVal bi_gather(SmCtx *c, const Builtin *b, const AstExpr *call, SmVal *a) {
    int axis;
    int ok = want_kind(c, b, &a[0], "src", is_numeric_or_bool, "a numeric or bool tile");
    ok &= want_kind(c, b, &a[1], "index", is_int, "an integer tile");
    if (!ok) return sm_poison();
    Type ts = sm_type_of(&a[0]), ti = sm_type_of(&a[1]);
    if (ts.rank == 0 || !want_axis(c, b, &a[2], ts.rank, &axis)) {
        if (ts.rank == 0)
            dg_error(c->dg, a[0].loc, "'gather' needs a tile, got a scalar '%s'",
                     sm_describe(c, &a[0]));
        return sm_poison();
    }
    for (int d = 0; d < ts.rank; d++)
        if (ti.rank != ts.rank || (d != axis && ti.dim[d] != ts.dim[d])) {
            dg_error(c->dg, a[1].loc, "'index' of 'gather' must have the shape of "
                     "'src' but along axis %d: '%s' against '%s'", axis,
                     sm_describe(c, &a[1]), sm_describe(c, &a[0]));
            return sm_poison();
        }
    c->b.loc = call->loc;
    IrValue *r = sm_emit1(c, IR_GATHER, sm_with_kind(ti, ts.k), a[0].v, as_ir(c, &a[1]), NULL);
    r->def->iattr[0] = axis;
    return sm_val(r, call->loc);
}

/* sort(x, axis=-1, descending=false); topk(x, k, axis=-1): the k largest,
 * largest first (a descending sort's first k, k a power of two) */
static SmVal bi_sort(SmCtx *c, const Builtin *b, const AstExpr *call, SmVal *a) {
    int topk = b->op, axis, desc = topk;
    SmVal *ax = &a[topk ? 2 : 1];
    int64_t k = 0;
    if (!want_kind(c, b, &a[0], "x", is_numeric_or_bool, "a numeric or bool tile"))
        return sm_poison();
    Type t = sm_type_of(&a[0]);
    if (t.rank == 0) {
        dg_error(c->dg, a[0].loc, "'%s' needs a tile, got a scalar '%s'", b->name,
                 sm_describe(c, &a[0]));
        return sm_poison();
    }
    axis = t.rank - 1;
    if (!absent(ax) && !want_axis(c, b, ax, t.rank, &axis)) return sm_poison();
    if (!topk && !absent(&a[2]) && !want_bool_const(c, b, &a[2], "descending", &desc))
        return sm_poison();
    if (topk && !want_int(c, b, &a[1], "k", &k)) return sm_poison();
    if (topk && (k <= 0 || k > t.dim[axis])) {
        dg_error(c->dg, a[1].loc, "'k' of 'topk' must be from 1 to the axis' %d, "
                 "got %lld", t.dim[axis], (long long)k);
        return sm_poison();
    }
    c->b.loc = call->loc;
    IrValue *r = sm_emit1(c, IR_SORT, t, a[0].v, NULL, NULL);
    r->def->iattr[0] = axis;
    r->def->iattr[1] = desc;
    if (topk && k < t.dim[axis]) {
        Type kt = t;
        kt.dim[axis] = (int32_t)k;
        r = sm_emit1(c, IR_SLICE, kt, r, NULL, NULL);
        r->def->iattr[0] = axis;
        r->def->iattr[1] = 0;
    }
    return sm_val(r, call->loc);
}

static SmVal bi_hint(SmCtx *c, const Builtin *b, const AstExpr *call,
                     SmVal *a) {
    int64_t n;
    int ok = want_kind(c, b, &a[0], "x", is_int, "an integer tile");
    ok &= want_int(c, b, &a[1], "n", &n);
    if (!ok) return sm_poison();
    if (n <= 0 || n > INT32_MAX) {
        dg_error(c->dg, a[1].loc, "argument 'n' of '%s' must be positive, got %lld",
                 b->name, (long long)n);
        return sm_poison();
    }
    c->b.loc = call->loc;
    IrValue *x = as_ir(c, &a[0]);
    IrValue *r = sm_emit1(c, (IrOpcode)b->op, x->ty, x, NULL, NULL);
    r->def->iattr[0] = n;
    return sm_val(r, call->loc);
}

/* --------------------------------------------------------------- debug */

/* device_print("fmt", x...) */
static SmVal bi_print(SmCtx *c, const Builtin *b, const AstExpr *call,
                      SmVal *a) {
    int n = call->nargs - 1, ok = want_str(c, b, &a[0], "fmt");
    IrValue **args = ar_alloc(c->ar, sizeof(IrValue *) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) ok &= want_value(c, b, &a[1 + i], "x");
    if (!ok) return sm_poison();
    c->b.loc = call->loc;
    for (int i = 0; i < n; i++) args[i] = as_ir(c, &a[1 + i]);
    IrOp *op = ir_emit(&c->b, IR_PRINT, 0, NULL, n, args);
    op->sattr = a[0].s;
    return sm_void(b->name, call->loc);
}

/* device_assert(cond, "msg") */
static SmVal bi_assert(SmCtx *c, const Builtin *b, const AstExpr *call,
                       SmVal *a) {
    int ok = want_kind(c, b, &a[0], "cond", is_bool, "bool");
    if (!absent(&a[1])) ok &= want_str(c, b, &a[1], "msg");
    if (!ok) return sm_poison();
    if (c->opt->debug) {
        c->b.loc = call->loc;
        IrValue *cond = as_ir(c, &a[0]);
        IrOp *op = ir_emit(&c->b, IR_ASSERT, 0, NULL, 1, &cond);
        op->sattr = absent(&a[1]) ? "" : a[1].s;
    }
    return sm_void(b->name, call->loc);
}

static SmVal bi_barrier(SmCtx *c, const Builtin *b, const AstExpr *call,
                        SmVal *a) {
    (void)a;
    c->b.loc = call->loc;
    ir_emit(&c->b, IR_BARRIER, 0, NULL, 0, NULL);
    return sm_void(b->name, call->loc);
}

/* static_assert(cond, "msg") */
static SmVal bi_static_assert(SmCtx *c, const Builtin *b, const AstExpr *call,
                              SmVal *a) {
    if (!absent(&a[1]) && !want_str(c, b, &a[1], "msg")) return sm_poison();
    if (a[0].kind == SV_POISON) return sm_poison();
    if (a[0].kind != SV_CONST || a[0].k != SK_BOOL) {
        dg_error(c->dg, a[0].loc, "condition of 'static_assert' must be a "
                 "compile-time bool, got %s", a[0].kind == SV_VAL
                     ? "a runtime value" : ar_printf(c->ar, "'%s'", sm_describe(c, &a[0])));
        return sm_poison();
    }
    if (!a[0].i) {
        if (absent(&a[1]))
            dg_error(c->dg, call->loc, "static assertion failed");
        else
            dg_error(c->dg, call->loc, "static assertion failed: %s", a[1].s);
    }
    return sm_void(b->name, call->loc);
}

/* --------------------------------------------------------------- table */

static const Builtin builtins[] = {
    {"program_id", "axis", bi_program, IR_PROGRAM_ID, 1},
    {"num_programs", "axis", bi_program, IR_NUM_PROGRAMS, 1},
    {"arange", "lo, hi", bi_arange, 0, 1},
    {"zeros", "shape, dtype", bi_full, 0, 1},
    {"full", "shape, value, dtype", bi_full, 1, 1},
    {"zeros_like", "x", bi_zeros_like, 0, 1},
    {"load", "p, mask?, other?, cache?, evict?", bi_load, 0, 1},
    {"store", "p, value, mask?", bi_store, -1, 0},
    {"atomic_add", "p, value, mask?", bi_store, ATOM_ADD, 0},
    {"atomic_max", "p, value, mask?", bi_store, ATOM_MAX, 0},
    {"atomic_min", "p, value, mask?", bi_store, ATOM_MIN, 0},
    {"atomic_xchg", "p, value, mask?", bi_store, ATOM_XCHG, 0},
    {"atomic_cas", "p, cmp, value", bi_cas, 0, 0},
    {"dot", "a, b, acc?, precision?, out_dtype?", bi_dot, 0, 1},
    {"sum", "x, axis?, keepdims?, dtype?", bi_reduce, RED_SUM, 1},
    {"max", "x, axis?, keepdims?", bi_reduce, RED_MAX, 1},
    {"min", "x, axis?, keepdims?", bi_reduce, RED_MIN, 1},
    {"argmax", "x, axis?, keepdims?", bi_reduce, RED_ARGMAX, 1},
    {"argmin", "x, axis?, keepdims?", bi_reduce, RED_ARGMIN, 1},
    {"reduce", "x, axis, combine, keepdims?", bi_reduce_fn, RED_FN, 1},
    {"cumsum", "x, axis?", bi_scan, SCAN_SUM, 1},
    {"cumprod", "x, axis?", bi_scan, SCAN_PROD, 1},
    {"cummax", "x, axis?", bi_scan, SCAN_MAX, 1},
    {"cummin", "x, axis?", bi_scan, SCAN_MIN, 1},
    {"scan", "x, axis, combine", bi_scan, SCAN_FN, 1},
    {"where", "condition, x, y", bi_where, 0, 1},
    {"maximum", "x, y", bi_minmax, IR_MAX, 1},
    {"minimum", "x, y", bi_minmax, IR_MIN, 1},
    {"clamp", "x, lo, hi", bi_clamp, 0, 1},
    {"abs", "x", bi_math, IR_ABS, 1},
    {"exp", "x", bi_math, IR_EXP, 1},
    {"exp2", "x", bi_math, IR_EXP2, 1},
    {"log", "x", bi_math, IR_LOG, 1},
    {"log2", "x", bi_math, IR_LOG2, 1},
    {"sqrt", "x", bi_math, IR_SQRT, 1},
    {"rsqrt", "x", bi_math, IR_RSQRT, 1},
    {"sin", "x", bi_math, IR_SIN, 1},
    {"cos", "x", bi_math, IR_COS, 1},
    {"tanh", "x", bi_math, IR_TANH, 1},
    {"erf", "x", bi_math, IR_ERF, 1},
    {"tan", "x", bi_math, IR_TAN, 1},
    {"floor", "x", bi_math, IR_FLOOR, 1},
    {"ceil", "x", bi_math, IR_CEIL, 1},
    {"trunc", "x", bi_math, IR_TRUNC, 1},
    {"round", "x", bi_math, IR_ROUND, 1},
    {"rint", "x", bi_math, IR_RINT, 1},
    {"isnan", "x", bi_isclass, 0, 1},
    {"isinf", "x", bi_isclass, 1, 1},
    {"bitcast", "x, dtype", bi_bitcast, 0, 1},
    {"fma", "x, y, z", bi_fma_pow, IR_FMA, 1},
    {"pow", "x, y", bi_fma_pow, IR_POW, 1},
    {"atan2", "y, x", bi_fma_pow, IR_ATAN2, 1},
    {"libdevice", "name, x, y?", bi_libdevice, 0, 1},
    {"umulhi", "x, y", bi_umulhi, 0, 1},
    {"cdiv", "x, y", bi_cdiv, 0, 1},
    {"reshape", "x, shape", bi_reshape, 0, 1},
    {"trans", "x", bi_trans, 0, 1},
    {"permute", "x, dims", bi_permute, 0, 1},
    {"broadcast_to", "x, shape", bi_broadcast_to, 0, 1},
    {"expand_dims", "x, axis", bi_expand_dims, 0, 1},
    {"cat", "a, b, axis?", bi_cat, 0, 1},
    {"join", "a, b", bi_join, 0, 1},
    {"interleave", "a, b", bi_join, 1, 1},
    {"gather", "src, index, axis", bi_gather, 0, 1},
    {"sort", "x, axis?, descending?", bi_sort, 0, 1},
    {"topk", "x, k, axis?", bi_sort, 1, 1},
    {"multiple_of", "x, n", bi_hint, IR_MULTIPLE_OF, 1},
    {"max_contiguous", "x, n", bi_hint, IR_MAX_CONTIG, 1},
    {"device_print", "fmt, x...", bi_print, 0, 0},
    {"device_assert", "cond, msg?", bi_assert, 0, 0},
    {"debug_barrier", "", bi_barrier, 0, 0},
    {"static_assert", "cond, msg?", bi_static_assert, 0, 0},
};

static const Builtin *find(const char *name) {
    for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
        if (strcmp(builtins[i].name, name) == 0) return &builtins[i];
    return NULL;
}

int sm_has_builtin(const char *name) { return find(name) != NULL; }

/* Builtins that take f8 values: the ones that only move, select or
 * reinterpret elements (and store, not the atomics). The others (math,
 * reductions, scans, sorts, dot, prints) get an error instead. */
static int moves_f8(const Builtin *b) {
    static const char *const names[] = {
        "zeros", "full", "zeros_like", "load", "where", "bitcast", "reshape", "trans",
        "permute", "broadcast_to", "expand_dims", "cat", "join", "interleave", "gather"};
    if (b->fn == bi_store) return b->op == -1;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(b->name, names[i]) == 0) return 1;
    return 0;
}

int sm_builtin_is_pure(const char *name) {
    const Builtin *b = find(name);
    return b && b->pure;
}

/* ------------------------------------------------------------- binding */

SmVal sm_builtin(SmCtx *c, const AstExpr *call, const SmVal *args) {
    const Builtin *b = find(call->name);
    Param ps[MAXP];
    int np = parse_params(b->params, ps);
    int variadic = np && ps[np - 1].variadic;
    int nslots = variadic ? np - 1 + call->nargs : np;
    SmVal *a = ar_alloc(c->ar, sizeof(SmVal) * (size_t)(nslots + MAXP));
    int *given = ar_alloc(c->ar, sizeof(int) * (size_t)(nslots + MAXP));
    for (int i = 0; i < nslots + MAXP; i++) {
        a[i].kind = SV_NONE;
        a[i].loc = call->loc;
    }
    int bad = 0;
    if (call->nargs > np && !variadic) {
        dg_error(c->dg, call->args[np]->loc, "too many arguments to '%s' "
                 "(expected at most %d, got %d)", b->name, np, call->nargs);
        return sm_poison();
    }
    for (int i = 0; i < call->nargs; i++) {
        a[i] = args[i];
        given[i] = 1;
    }
    for (int j = 0; j < call->nnamed; j++) {
        const char *nm = call->names[j];
        int slot = -1;
        for (int i = 0; i < np; i++)
            if (!ps[i].variadic && strcmp(ps[i].name, nm) == 0) slot = i;
        if (slot < 0) {
            dg_error(c->dg, call->nlocs[j], "'%s' has no argument named '%s'",
                     b->name, nm);
            bad = 1;
        } else if (given[slot]) {
            dg_error(c->dg, call->nlocs[j], "argument '%s' of '%s' is given twice",
                     nm, b->name);
            bad = 1;
        } else {
            a[slot] = args[call->nargs + j];
            given[slot] = 1;
        }
    }
    for (int i = 0; i < np && !bad; i++)
        if (!ps[i].optional && !ps[i].variadic && !given[i]) {
            dg_error(c->dg, call->loc, "missing argument '%s' in call to '%s'",
                     ps[i].name, b->name);
            bad = 1;
        }
    if (bad) return sm_poison();
    for (int i = 0; i < nslots; i++)
        if (a[i].kind == SV_POISON) return sm_poison();
    for (int i = 0; i < nslots && !moves_f8(b) && b->fn != bi_dot; i++) {
        if ((a[i].kind != SV_VAL && a[i].kind != SV_CONST) || !ty_isf8(sm_type_of(&a[i]).k))
            continue;
        return sm_f8_refused(c, ar_printf(c->ar, "'%s'", b->name), &a[i], a[i].loc);
    }
    return b->fn(c, b, call, a);
}
