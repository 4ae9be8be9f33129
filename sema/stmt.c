/*
 * stmt.c — statements, structured control flow and fn inlining.
 *
 * Mutable state is SSA by construction: a `var` binding holds its *current*
 * IR value, and assignment just replaces it. Control flow makes the flow of
 * those values explicit, the way MLIR's scf dialect does:
 *
 *  - Before a `for`, `while` or runtime `if`, a pre-scan of the AST finds
 *    the outer vars the construct assigns (names declared inside it shadow
 *    and are skipped). Those, and only those, are carried: they enter a
 *    loop as region arguments, leave every region through `yield` (or
 *    `condition`), and the op's results become their new values.
 *  - A var's type is fixed at its declaration, so region argument types are
 *    known before the body is checked; an assignment of another type is an
 *    error at the assignment, never a mismatch discovered later.
 *  - An `if` whose condition is a compile-time constant is folded: only the
 *    taken branch is checked and emitted (the other may be ill-typed for
 *    this configuration, as Triton's constexpr `if` allows).
 *  - static_range loops are unrolled: the body is evaluated once per value
 *    of the index, bound as a compile-time constant.
 *
 * A fn call evaluates the fn body in a fresh barrier scope holding the
 * parameters; `return e;` is allowed only as the body's last statement, so
 * every fn has exactly one exit and inlining needs no control flow.
 */
#include "sm.h"

#include <string.h>

static void stmt(SmCtx *c, const AstStmt *s);

void sm_block(SmCtx *c, const AstStmt *blk) {
    sm_push_scope(c, 0);
    for (int i = 0; i < blk->nbody && !dg_full(c->dg); i++) stmt(c, blk->body[i]);
    sm_pop_scope(c);
}

/* Runs a branch that is a block or (else if) a statement. */
static void branch(SmCtx *c, const AstStmt *s) {
    if (s->kind == S_BLOCK)
        sm_block(c, s);
    else
        stmt(c, s);
}

/* --------------------------------------------------- assigned-var scan */

typedef Vec(const char *) NameVec;
typedef Vec(SmBind *) BindVec;

static int declared_inside(const NameVec *d, const char *name) {
    for (int i = d->n - 1; i >= 0; i--)
        if (strcmp(d->v[i], name) == 0) return 1;
    return 0;
}

static void scan(SmCtx *c, const AstStmt *s, NameVec *decl, BindVec *out) {
    if (!s) return;
    int mark = decl->n;
    switch (s->kind) {
    case S_LET:
    case S_VAR:
        vec_push(c->ar, decl, s->name);
        return;
    case S_ASSIGN: {
        if (declared_inside(decl, s->name)) return;
        SmBind *b = sm_lookup(c, s->name);
        if (!b || b->kind != B_VAR) return;
        for (int i = 0; i < out->n; i++)
            if (out->v[i] == b) return;
        vec_push(c->ar, out, b);
        return;
    }
    case S_BLOCK:
        for (int i = 0; i < s->nbody; i++) scan(c, s->body[i], decl, out);
        break;
    case S_FOR:
        vec_push(c->ar, decl, s->name);
        /* fallthrough */
    case S_IF:
    case S_WHILE:
        for (int i = 0; i < s->nbody; i++) scan(c, s->body[i], decl, out);
        decl->n = mark;
        scan(c, s->els, decl, out);
        break;
    default: break;
    }
    decl->n = mark;
}

static BindVec assigned_vars(SmCtx *c, const AstStmt *a, const AstStmt *b) {
    NameVec decl = {0};
    BindVec out = {0};
    scan(c, a, &decl, &out);
    scan(c, b, &decl, &out);
    return out;
}

static Type *carried_types(SmCtx *c, const BindVec *vars, Type first,
                           int with_first) {
    Type *t = ar_alloc(c->ar, sizeof(Type) * (size_t)(vars->n + 2));
    int n = 0;
    if (with_first) t[n++] = first;
    for (int i = 0; i < vars->n; i++) t[n++] = vars->v[i]->val.v->ty;
    return t;
}

static IrValue **current_values(SmCtx *c, const BindVec *vars, IrValue *first) {
    IrValue **v = ar_alloc(c->ar, sizeof(IrValue *) * (size_t)(vars->n + 2));
    int n = 0;
    if (first) v[n++] = first;
    for (int i = 0; i < vars->n; i++) v[n++] = vars->v[i]->val.v;
    return v;
}

static void set_values(const BindVec *vars, IrValue **vals) {
    for (int i = 0; i < vars->n; i++) vars->v[i]->val.v = vals[i];
}

/* Makes region r of op a fresh block with the given argument types and
 * points the builder at it; returns the builder's previous block. */
static IrBlock *enter_region(SmCtx *c, IrOp *op, int r, int nargs,
                             const Type *types) {
    IrBlock *blk = ir_block(&c->b, nargs, types);
    blk->parent = op;
    op->regions[r] = blk;
    IrBlock *prev = c->b.blk;
    c->b.blk = blk;
    return prev;
}

static void yield(SmCtx *c, const BindVec *vars, Loc loc, IrOpcode op,
                  IrValue *cond) {
    c->b.loc = loc;
    ir_emit(&c->b, op, 0, NULL, vars->n + (cond != NULL),
            current_values(c, vars, cond));
}

/* Drops carried vars whose value is poisoned: they have no IR value. */
static int vars_ok(const BindVec *vars) {
    for (int i = 0; i < vars->n; i++)
        if (vars->v[i]->val.kind != SV_VAL) return 0;
    return 1;
}

/* -------------------------------------------------------- declarations */

/* Converts v for `let x: T`, `var x: T`, an assignment to a var of type
 * `to`, or a fn parameter annotation. strict: the element type must match
 * (vars), otherwise implicit widening is allowed. shape_too: `to`'s shape
 * is imposed (broadcasting into it); else only the element type. */
static SmVal convert_to(SmCtx *c, SmVal v, Type to, int strict, int shape_too,
                        const char *name, const char *verb, Loc loc) {
    if (v.kind == SV_POISON || !sm_check_value(c, &v)) return sm_poison();
    Type vt = sm_type_of(&v), want = to, shape;
    if (!shape_too) want = sm_with_kind(vt, to.k), want.pointee = to.pointee;
    int weak = v.kind == SV_CONST && v.weak;
    int elem_ok = vt.k == SK_PTR || to.k == SK_PTR
                      ? ty_eq(ty_elem(vt), ty_elem(to))
                  : strict && !weak ? vt.k == to.k
                                    : sm_implicit_ok(&v, (ScalarKind)to.k);
    int shape_ok = sm_broadcast_shape(want, vt, &shape) && ty_same_shape(shape, want);
    if (!elem_ok || !shape_ok) {
        Type shown = want;
        const char *hint = "";
        if (!elem_ok && shape_ok && vt.k != SK_PTR && to.k != SK_PTR &&
            sm_const_fits(&v, (ScalarKind)to.k))
            hint = ar_printf(c->ar, "; convert it explicitly with 'as %s'",
                             ty_kind_name(to.k));
        if (!sm_const_fits(&v, (ScalarKind)to.k))
            dg_error(c->dg, v.loc, "integer literal %lld does not fit in '%s'",
                     (long long)v.i, ty_kind_name(to.k));
        else if (!strcmp(verb, "assign"))
            dg_error(c->dg, loc, "cannot assign '%s' to var '%s' of type '%s'%s",
                     sm_describe(c, &v), name, ty_str(c->ar, shown), hint);
        else if (!strcmp(verb, "pass"))
            dg_error(c->dg, loc, "cannot pass '%s' as parameter '%s' of type "
                     "'%s'%s", sm_describe(c, &v), name, ty_str(c->ar, shown), hint);
        else
            dg_error(c->dg, loc, "cannot initialize '%s' of type '%s' with '%s'%s",
                     name, ty_str(c->ar, shown), sm_describe(c, &v), hint);
        return sm_poison();
    }
    c->b.loc = loc;
    if (v.kind == SV_CONST && !shape_too) {
        SmVal r = sm_fold_cast(&v, (ScalarKind)to.k);
        r.loc = v.loc;
        return r;
    }
    IrValue *x = sm_convert(c, &v, (ScalarKind)want.k);
    return sm_val(sm_broadcast_to(c, x, want), v.loc);
}

/* let x [: T] = e;  var x [: T] = e; */
static void declare(SmCtx *c, const AstStmt *s) {
    SmVal v = sm_expr(c, s->value);
    int is_var = s->kind == S_VAR;
    if (s->type && v.kind != SV_POISON) {
        Type t;
        if (!sm_resolve_type(c, s->type, &t, 1))
            v = sm_poison();
        else
            v = convert_to(c, v, t, 0, s->type->kind == T_TILE, s->name,
                           "initialize", s->value->loc);
    }
    if (v.kind != SV_POISON && (is_var || v.kind != SV_TYPE) &&
        !sm_check_value(c, &v))
        v = sm_poison();
    if (is_var && v.kind == SV_CONST) {
        c->b.loc = s->loc;
        v = sm_val(sm_materialize(c, &v, sm_type_of(&v).k), v.loc);
    }
    if (v.kind == SV_VAL && !v.v->name) v.v->name = s->name;
    sm_declare(c, s->name, is_var ? B_VAR : B_LET, s->nloc, v);
}

static const char *bind_what(BindKind k) {
    switch (k) {
    case B_LET: return "a 'let' binding";
    case B_PARAM: return "a parameter";
    case B_CPARAM: return "a compile-time parameter";
    case B_LOOP: return "a loop index";
    default: return "a var";
    }
}

/* x = e;  x op= e; */
static void assign(SmCtx *c, const AstStmt *s) {
    SmBind *b = sm_lookup(c, s->name);
    SmVal v = sm_expr(c, s->value);
    if (!b) {
        const char *sug = sm_suggest(c, s->name);
        dg_error(c->dg, s->nloc, "assignment to undeclared name '%s'%s%s%s",
                 s->name, sug ? "; did you mean '" : "", sug ? sug : "",
                 sug ? "'?" : "");
        return;
    }
    if (b->kind != B_VAR) {
        dg_error(c->dg, s->nloc, "cannot assign to '%s', which is %s", s->name,
                 bind_what(b->kind));
        dg_note(c->dg, b->loc, "'%s' is declared here%s", s->name,
                b->kind == B_LET ? "; declare it with 'var' to make it mutable" : "");
        return;
    }
    if (b->val.kind != SV_VAL) return;
    if (s->op >= 0) v = sm_binary(c, (AstOp)s->op, b->val, v, s->loc);
    if (v.kind == SV_POISON) return;
    int before = dg_errors(c->dg);
    SmVal r = convert_to(c, v, b->val.v->ty, 1, 1, s->name, "assign", s->loc);
    if (r.kind == SV_POISON) {
        if (dg_errors(c->dg) > before)
            dg_note(c->dg, b->loc, "'%s' is declared here; a var keeps its type "
                    "and shape", s->name);
        return;
    }
    b->val.v = r.v;
}

/* ------------------------------------------------------- control flow */

static int scalar_bool(SmCtx *c, SmVal *v, const char *what) {
    if (v->kind == SV_POISON || !sm_check_value(c, v)) return 0;
    Type t = sm_type_of(v);
    if (t.k == SK_BOOL && t.rank == 0) return 1;
    if (t.rank)
        dg_error(c->dg, v->loc, "condition of '%s' must be a scalar bool, got "
                 "'%s'%s", what, sm_describe(c, v),
                 !strcmp(what, "if") ? "; use 'where' to select element-wise" : "");
    else
        dg_error(c->dg, v->loc, "condition of '%s' must be a bool, got '%s'; "
                 "compare it explicitly (e.g. 'x != 0')", what, sm_describe(c, v));
    return 0;
}

/* if c { } else { } */
static void if_stmt(SmCtx *c, const AstStmt *s) {
    SmVal cond = sm_expr(c, s->cond);
    if (!scalar_bool(c, &cond, "if")) {
        sm_block(c, s->body[0]);          /* still check both branches */
        if (s->els) branch(c, s->els);
        return;
    }
    if (cond.kind == SV_CONST) {
        if (cond.i)
            sm_block(c, s->body[0]);
        else if (s->els)
            branch(c, s->els);
        return;
    }
    BindVec vars = assigned_vars(c, s->body[0], s->els);
    if (!vars_ok(&vars)) return;
    c->b.loc = s->loc;
    IrValue *cv = cond.v;
    IrOp *op = ir_emit(&c->b, IR_IF, vars.n, carried_types(c, &vars, cond.v->ty, 0),
                       1, &cv);
    ir_add_regions(&c->b, op, 2);
    IrValue **orig = current_values(c, &vars, NULL);
    IrBlock *outer = enter_region(c, op, 0, 0, NULL);
    sm_block(c, s->body[0]);
    yield(c, &vars, s->loc, IR_YIELD, NULL);
    set_values(&vars, orig);
    enter_region(c, op, 1, 0, NULL);
    if (s->els) branch(c, s->els);
    yield(c, &vars, s->loc, IR_YIELD, NULL);
    c->b.blk = outer;
    set_values(&vars, op->res);
}

/* Range bounds: integer scalars, as i32. */
static IrValue *loop_bound(SmCtx *c, SmVal v, const char *what) {
    if (v.kind == SV_POISON || !sm_check_value(c, &v)) return NULL;
    Type t = sm_type_of(&v);
    if (t.rank || !ty_isint(t.k) || !sm_implicit_ok(&v, SK_I32)) {
        dg_error(c->dg, v.loc, "%s of 'range' must be an integer scalar that fits "
                 "in i32, got '%s'", what, sm_describe(c, &v));
        return NULL;
    }
    c->b.loc = v.loc;
    return sm_convert(c, &v, SK_I32);
}

static int range_args(SmCtx *c, const AstExpr *it, SmVal *out) {
    if (it->nnamed) {
        dg_error(c->dg, it->nlocs[0], "'%s' takes no named arguments", it->name);
        return 0;
    }
    if (it->nargs < 1 || it->nargs > 3) {
        dg_error(c->dg, it->loc, "'%s' takes 1 to 3 arguments (lo, hi, step), got %d",
                 it->name, it->nargs);
        return 0;
    }
    int first = it->nargs == 1;
    out[0] = sm_const_int(SK_I32, 0, 1, it->loc);
    out[2] = sm_const_int(SK_I32, 1, 1, it->loc);
    for (int i = 0; i < it->nargs; i++) out[first + i] = sm_expr(c, it->args[i]);
    if (out[2].kind == SV_CONST && ty_isint(out[2].k) && out[2].i == 0) {
        dg_error(c->dg, out[2].loc, "step of '%s' must not be zero", it->name);
        return 0;
    }
    return 1;
}

#define SM_MAX_UNROLL 4096

/* Iterations of static_range(lo, hi, step), step != 0, without overflow. */
static uint64_t trip_count(int64_t lo, int64_t hi, int64_t step) {
    if (step > 0)
        return hi <= lo ? 0 : ((uint64_t)hi - (uint64_t)lo - 1) / (uint64_t)step + 1;
    return hi >= lo ? 0
         : ((uint64_t)lo - (uint64_t)hi - 1) / ((uint64_t)0 - (uint64_t)step) + 1;
}

/* for i in static_range(lo, hi, step) { } — unrolled */
static void static_for(SmCtx *c, const AstStmt *s) {
    SmVal a[3];
    int64_t v[3];
    if (!range_args(c, s->iter, a)) return;
    static const char *const what[] = {"start of 'static_range'",
                                       "end of 'static_range'",
                                       "step of 'static_range'"};
    for (int i = 0; i < 3; i++)
        if (!sm_const_int_arg(c, &a[i], what[i], &v[i])) return;
    uint64_t n = trip_count(v[0], v[1], v[2]);
    if (n > SM_MAX_UNROLL) {
        dg_error(c->dg, s->iter->loc, "'static_range' would unroll %llu "
                 "iterations, more than the limit of %d", (unsigned long long)n,
                 SM_MAX_UNROLL);
        return;
    }
    sm_unroll_enter(c, s->iter->loc, (int64_t)n);
    for (uint64_t i = 0; i < n && !dg_full(c->dg) && sm_unroll_step(c); i++) {
        /* lo + i * step lies between lo and hi: the wrap-around is exact */
        int64_t x = (int64_t)((uint64_t)v[0] + i * (uint64_t)v[2]);
        sm_push_scope(c, 0);
        sm_declare(c, s->name, B_LOOP, s->nloc, sm_const_int(SK_I32, x, 1, s->nloc));
        sm_block(c, s->body[0]);
        sm_pop_scope(c);
    }
    sm_unroll_leave(c);
}

/* for k in range(lo, hi, step) { } */
static void for_stmt(SmCtx *c, const AstStmt *s) {
    const AstExpr *it = s->iter;
    if (it->kind != E_CALL ||
        (strcmp(it->name, "range") && strcmp(it->name, "static_range"))) {
        dg_error(c->dg, it->loc, "a for loop iterates over 'range(...)' or "
                 "'static_range(...)'");
        return;
    }
    if (!strcmp(it->name, "static_range")) {
        static_for(c, s);
        return;
    }
    SmVal a[3];
    if (!range_args(c, it, a)) return;
    static const char *const what[] = {"start", "end", "step"};
    IrValue *bound[3];
    int ok = 1;
    for (int i = 0; i < 3; i++) ok &= (bound[i] = loop_bound(c, a[i], what[i])) != NULL;
    BindVec vars = assigned_vars(c, s->body[0], NULL);
    if (!ok || !vars_ok(&vars)) return;
    c->b.loc = s->loc;
    IrValue **args = ar_alloc(c->ar, sizeof(IrValue *) * (size_t)(vars.n + 4));
    memcpy(args, bound, sizeof bound);
    for (int i = 0; i < vars.n; i++) args[3 + i] = vars.v[i]->val.v;
    IrOp *op = ir_emit(&c->b, IR_FOR, vars.n, carried_types(c, &vars, sm_type_of(&a[0]), 0),
                       3 + vars.n, args);
    ir_add_regions(&c->b, op, 1);
    Type *argt = carried_types(c, &vars, ty_scalar(SK_I32), 1);
    IrBlock *outer = enter_region(c, op, 0, vars.n + 1, argt);
    IrBlock *body = op->regions[0];
    body->args[0]->name = s->name;
    set_values(&vars, body->args + 1);
    sm_push_scope(c, 0);
    sm_declare(c, s->name, B_LOOP, s->nloc, sm_val(body->args[0], s->nloc));
    sm_block(c, s->body[0]);
    sm_pop_scope(c);
    yield(c, &vars, s->loc, IR_YIELD, NULL);
    c->b.blk = outer;
    set_values(&vars, op->res);
}

/* while c { } */
static void while_stmt(SmCtx *c, const AstStmt *s) {
    BindVec vars = assigned_vars(c, s->body[0], NULL);
    if (!vars_ok(&vars)) return;
    c->b.loc = s->loc;
    Type *types = carried_types(c, &vars, ty_scalar(SK_VOID), 0);
    IrOp *op = ir_emit(&c->b, IR_WHILE, vars.n, types, vars.n,
                       current_values(c, &vars, NULL));
    ir_add_regions(&c->b, op, 2);
    IrBlock *outer = enter_region(c, op, 0, vars.n, types);
    set_values(&vars, op->regions[0]->args);
    SmVal cond = sm_expr(c, s->cond);
    IrValue *cv = NULL;
    if (scalar_bool(c, &cond, "while")) {
        c->b.loc = s->cond->loc;
        cv = sm_materialize(c, &cond, SK_BOOL);
    } else {
        cv = ir_const_int(&c->b, ty_scalar(SK_BOOL), 0);
    }
    yield(c, &vars, s->cond->loc, IR_CONDITION, cv);
    enter_region(c, op, 1, vars.n, types);
    set_values(&vars, op->regions[1]->args);
    sm_block(c, s->body[0]);
    yield(c, &vars, s->loc, IR_YIELD, NULL);
    c->b.blk = outer;
    set_values(&vars, op->res);
}

/* e; — only for effect */
static void expr_stmt(SmCtx *c, const AstStmt *s) {
    const AstExpr *e = s->value;
    SmVal v = sm_expr(c, e);
    if (!sm_is_value(&v)) return;
    if (e->kind != E_CALL)
        dg_warn(c->dg, e->loc, "expression result unused");
    else if (sm_builtin_is_pure(e->name) && !sm_lookup_global(c, e->name))
        dg_warn(c->dg, e->loc, "result of '%s' is unused; the call has no effect",
                e->name);
}

static void stmt(SmCtx *c, const AstStmt *s) {
    if (!sm_ops_ok(c, s->loc)) return;
    switch (s->kind) {
    case S_LET:
    case S_VAR: declare(c, s); break;
    case S_ASSIGN: assign(c, s); break;
    case S_IF: if_stmt(c, s); break;
    case S_FOR: for_stmt(c, s); break;
    case S_WHILE: while_stmt(c, s); break;
    case S_EXPR: expr_stmt(c, s); break;
    case S_BLOCK: sm_block(c, s); break;
    case S_RETURN:
        if (c->frames.n == 0)
            dg_error(c->dg, s->loc, "'return' is only allowed in a fn");
        else
            dg_error(c->dg, s->loc, "'return' must be the last statement of a fn "
                     "body");
        break;
    }
}

/* ------------------------------------------------------------ inlining */

#define SM_MAX_INLINE 64

static SmVal bind_params(SmCtx *c, const AstItem *fn, const AstExpr *call,
                         const SmVal *args, SmVal *bound) {
    int n = fn->nparams;
    int *given = ar_alloc(c->ar, sizeof(int) * (size_t)(n + 1));
    if (call->nargs > n) {
        dg_error(c->dg, call->args[n]->loc, "too many arguments to fn '%s' "
                 "(expected %d, got %d)", fn->name, n, call->nargs);
        dg_note(c->dg, fn->nloc, "'%s' is declared here", fn->name);
        return sm_poison();
    }
    for (int i = 0; i < call->nargs; i++) bound[i] = args[i], given[i] = 1;
    for (int j = 0; j < call->nnamed; j++) {
        int slot = -1;
        for (int i = 0; i < n; i++)
            if (!strcmp(fn->params[i].name, call->names[j])) slot = i;
        if (slot < 0 || given[slot]) {
            if (slot < 0)
                dg_error(c->dg, call->nlocs[j], "fn '%s' has no parameter named "
                         "'%s'", fn->name, call->names[j]);
            else
                dg_error(c->dg, call->nlocs[j], "argument '%s' of fn '%s' is given "
                         "twice", call->names[j], fn->name);
            dg_note(c->dg, fn->nloc, "'%s' is declared here", fn->name);
            return sm_poison();
        }
        bound[slot] = args[call->nargs + j];
        given[slot] = 1;
    }
    for (int i = 0; i < n; i++)
        if (!given[i]) {
            dg_error(c->dg, call->loc, "missing argument '%s' in call to fn '%s'",
                     fn->params[i].name, fn->name);
            dg_note(c->dg, fn->nloc, "'%s' is declared here", fn->name);
            return sm_poison();
        }
    for (int i = 0; i < n; i++) {
        if (bound[i].kind == SV_POISON) return sm_poison();
        const AstParam *p = &fn->params[i];
        if (!p->type) continue;
        Type t;
        if (!sm_resolve_type(c, p->type, &t, 1)) return sm_poison();
        bound[i] = convert_to(c, bound[i], t, 0, p->type->kind == T_TILE,
                              p->name, "pass", bound[i].loc);
        if (bound[i].kind == SV_POISON) {
            dg_note(c->dg, p->loc, "parameter '%s' of fn '%s' is declared here",
                    p->name, fn->name);
            return sm_poison();
        }
    }
    SmVal ok = {0};
    ok.kind = SV_VOID;
    return ok;
}

SmVal sm_inline(SmCtx *c, SmGlobal *g, const AstExpr *call, const SmVal *args) {
    const AstItem *fn = g->item;
    for (int i = 0; i < c->frames.n; i++)
        if (c->frames.v[i].fn == fn) {
            Buf chain = {0};
            for (int j = i; j < c->frames.n; j++)
                buf_printf(&chain, "%s -> ", c->frames.v[j].fn->name);
            buf_puts(&chain, fn->name);
            dg_error(c->dg, call->nloc, "recursive call to fn '%s' (%s); fns are "
                     "inlined and cannot recurse", fn->name, chain.s);
            buf_free(&chain);
            return sm_poison();
        }
    if (c->frames.n >= SM_MAX_INLINE) {
        dg_error(c->dg, call->nloc, "fn calls nested more than %d deep",
                 SM_MAX_INLINE);
        return sm_poison();
    }
    if (!sm_inline_enter(c, fn->name, call->loc)) return sm_poison();
    SmModule *mod = c->mod;
    SmScope *scope = c->scope;
    c->mod = g->mod;
    c->scope = NULL;
    sm_push_scope(c, 1);
    SmVal *bound = ar_alloc(c->ar, sizeof(SmVal) * (size_t)(fn->nparams + 1));
    SmVal r = bind_params(c, fn, call, args, bound);
    if (r.kind == SV_POISON) {
        c->mod = mod;
        c->scope = scope;
        sm_inline_leave(c);
        return r;
    }
    for (int i = 0; i < fn->nparams; i++)
        sm_declare(c, fn->params[i].name, B_PARAM, fn->params[i].loc, bound[i]);
    SmFrame f = {fn, call->loc};
    vec_push(c->ar, &c->frames, f);
    int before = dg_errors(c->dg);
    r = sm_void(fn->name, call->loc);
    const AstStmt *body = fn->body;
    sm_push_scope(c, 0);
    for (int i = 0; i < body->nbody && !dg_full(c->dg); i++) {
        const AstStmt *s = body->body[i];
        if (s->kind == S_RETURN && i == body->nbody - 1) {
            if (s->value) r = sm_expr(c, s->value);
        } else {
            stmt(c, s);
        }
    }
    c->frames.n--;
    sm_inline_leave(c);
    c->mod = mod;
    c->scope = scope;
    if (dg_errors(c->dg) > before && !dg_full(c->dg))
        dg_note(c->dg, call->loc, "in this call to fn '%s'", fn->name);
    if (r.kind != SV_POISON) r.loc = call->loc;
    return r;
}
