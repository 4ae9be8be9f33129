/*
 * sm.h — sema's private header: the compilation context and the value
 * model every sema file shares.
 *
 * Sema is an evaluator. It walks the AST of one kernel at one configuration
 * and, instead of decorating the tree, *runs* it: each expression evaluates
 * to an SmVal, which is either an IR value (emitted into the current block)
 * or something known at compile time — a constant, a type, a string, a
 * shape list, `None`. Compile-time things never reach the IR unless a
 * runtime operation needs them, at which point they are materialized as
 * `const` ops of the right type. That one mechanism gives constant folding,
 * weakly typed literals, compile-time parameters, static_range unrolling,
 * folded `if`s and fn inlining (a call evaluates the fn body with its
 * parameters bound to the argument values) without a separate pass for each.
 *
 * Constant contexts (const items, defaults, @prune, static bounds) evaluate
 * with the builder pointing at a scratch kernel, so any runtime operation
 * simply yields an IR value that the caller rejects as "not a compile-time
 * constant"; no expression form needs a constant-only twin.
 *
 * Errors produce SV_POISON values, which every consumer passes through
 * silently, so one mistake is reported once.
 *
 * Files: scope.c (modules, imports, names), config.c (kernel attributes,
 * compile-time parameters, configurations, kernel signature), grid.c
 * (grid/@require to GExpr), types.c (promotion, conversion, broadcasting,
 * folding), expr.c (expressions), builtins.c (the builtin table), stmt.c
 * (statements, control flow, fn inlining), budget.c (the limits on
 * compile-time work), sema.c (sm_compile).
 */
#ifndef TILE_SM_H
#define TILE_SM_H

#include "sema.h"

/* ---------------------------------------------------------------- values */

typedef enum {
    SV_POISON,  /* an error was already reported */
    SV_VOID,    /* a call without a value; s = the callee's name */
    SV_VAL,     /* v: an IR value */
    SV_CONST,   /* k, weak, i/f: a compile-time scalar */
    SV_TYPE,    /* k: a scalar type used as a value (f32, or a cparam T) */
    SV_STR,     /* s */
    SV_LIST,    /* items[n]: `[a, b]` */
    SV_NONE,    /* None */
    SV_SLICE,   /* ':' in an index list */
    SV_FN,      /* s: a fn named as a builtin's argument (a combiner) */
} SvKind;

typedef struct SmVal {
    uint8_t kind;        /* SvKind */
    uint8_t k;           /* SV_CONST, SV_TYPE: ScalarKind */
    uint8_t weak;        /* SV_CONST: a literal, still free to adapt */
    IrValue *v;
    int64_t i;           /* SV_CONST ints (wrapped to k's width) and bools */
    double f;            /* SV_CONST floats */
    const char *s;
    struct SmVal *items;
    int n;
    Loc loc;             /* the expression it came from */
} SmVal;

/* ---------------------------------------------------- modules and names */

typedef enum { G_CONST, G_FN, G_KERNEL } GlobalKind;

typedef struct SmModule SmModule;

typedef struct SmGlobal {
    const char *name;
    GlobalKind kind;
    const AstItem *item;
    SmModule *mod;
    SmVal val;           /* G_CONST once evaluated */
    int state;           /* G_CONST: 0 pending, 1 evaluating, 2 done */
} SmGlobal;

typedef Vec(SmModule *) SmModVec;

struct SmModule {
    const AstFile *ast;
    const char *path;
    const char *real;    /* realpath(path), the key of c->by_path */
    const char *dir;
    int loading;         /* on the import stack (cycle detection) */
    int loaded;
    int failed_import;   /* an import of this module failed (see scope.c) */
    SmModVec imports;
    Vec(SmGlobal *) globals;
    StrMap by_name;      /* globals by name */
};

typedef enum { B_LET, B_VAR, B_PARAM, B_CPARAM, B_LOOP } BindKind;

typedef struct SmBind {
    const char *name;
    BindKind kind;
    Loc loc;             /* the declaration */
    SmVal val;           /* current value (vars change as SSA) */
    struct SmBind *next;
} SmBind;

typedef struct SmScope {
    struct SmScope *parent;
    SmBind *first;
    int barrier;         /* a fn body: lookups stop here, then globals */
    int n;               /* bindings; past SM_SCOPE_LIST also in `map` */
    StrMap map;
} SmScope;

#define SM_SCOPE_LIST 8

/* A fn being inlined: for recursion chains and error notes. */
typedef struct SmFrame {
    const AstItem *fn;
    Loc call;
} SmFrame;

/* An unrolled static_range loop or an inlined fn call in progress; a
 * budget error blames the outermost one (budget.c). */
typedef struct SmNest {
    Loc loc;             /* the static_range(...) or the call */
    const char *fn;      /* a call: the fn; NULL for a loop */
    int64_t n;           /* a loop: its iteration count */
} SmNest;

/* Budgets of one compilation (every configuration of every kernel, and
 * the constants): static_range iterations unrolled, fn calls inlined, IR
 * operations created. Each bounds time and memory whatever the input. */
#define SM_MAX_UNROLL_TOTAL (1 << 18)
#define SM_MAX_INLINE_TOTAL (1 << 17)
#define SM_MAX_IR_OPS (1 << 20)

typedef struct SmCtx {
    Arena *ar;
    Diag *dg;
    const SmOptions *opt;
    SmModVec modules;
    StrMap by_path;      /* modules by real path */
    SmModule *mod;       /* module whose globals are visible */
    SmScope *scope;
    IrBuilder b;         /* where ops go; b.k is scratch in const contexts */
    IrKernel *scratch;   /* sink for constant contexts */
    Vec(SmFrame) frames; /* fn inlining stack */
    Vec(IrKernel *) kernels;   /* compiled so far, in order */
    Vec(SmNest) nest;    /* unrolled loops and inlined calls, outermost first */
    int64_t unrolled, inlined;   /* spent of the budgets */
    int64_t ops_done;    /* IR ops of the kernels finished (and scratch's */
                         /* and the current one's are in their nops) */
    int dwarps, dstages; /* -D warps=N / -D stages=N, checked; 0: not given */
} SmCtx;

/* scope.c */
void sm_load_imports(SmCtx *c, SmModule *m, SmModVec *stack);
SmModule *sm_new_module(SmCtx *c, const AstFile *f);
void sm_collect_globals(SmCtx *c, SmModule *m);
SmGlobal *sm_lookup_global(SmCtx *c, const char *name);
void sm_push_scope(SmCtx *c, int barrier);
void sm_pop_scope(SmCtx *c);
SmBind *sm_declare(SmCtx *c, const char *name, BindKind kind, Loc loc,
                   SmVal val);
SmBind *sm_lookup(SmCtx *c, const char *name);
const char *sm_suggest(SmCtx *c, const char *name);
int sm_is_builtin_name(const char *name);

/* types.c */
SmVal sm_poison(void);
SmVal sm_void(const char *callee, Loc loc);
SmVal sm_val(IrValue *v, Loc loc);
SmVal sm_const_int(ScalarKind k, int64_t v, int weak, Loc loc);
SmVal sm_const_float(ScalarKind k, double v, int weak, Loc loc);
SmVal sm_const_bool(int v, Loc loc);
Type sm_type_of(const SmVal *v);
const char *sm_describe(SmCtx *c, const SmVal *v);
/* f8 values are loaded, stored, converted and moved, never computed
 * with: an error at loc for `what` ("'+'", "'exp'") applied to v, which
 * is f8; returns poison. */
SmVal sm_f8_refused(SmCtx *c, const char *what, const SmVal *v, Loc loc);
int sm_is_value(const SmVal *v);        /* SV_VAL or SV_CONST */
int sm_check_value(SmCtx *c, const SmVal *v);
ScalarKind sm_promote(ScalarKind a, ScalarKind b);
ScalarKind sm_promote_weak(const SmVal *a, const SmVal *b);
int sm_implicit_ok(const SmVal *v, ScalarKind to);
int sm_const_fits(const SmVal *v, ScalarKind to);
int64_t sm_wrap_int(ScalarKind k, int64_t v);
SmVal sm_fold_cast(const SmVal *v, ScalarKind to);
IrValue *sm_materialize(SmCtx *c, const SmVal *v, ScalarKind k);
IrValue *sm_convert(SmCtx *c, const SmVal *v, ScalarKind k);
IrValue *sm_cast(SmCtx *c, IrValue *v, ScalarKind k);
int sm_broadcast_shape(Type a, Type b, Type *out);
IrValue *sm_broadcast_to(SmCtx *c, IrValue *v, Type shape);
IrValue *sm_emit1(SmCtx *c, IrOpcode op, Type t, IrValue *a, IrValue *b,
                  IrValue *d);
Type sm_with_kind(Type shape, ScalarKind k);
int sm_check_shape(SmCtx *c, Loc loc, int rank, const int32_t *dims);

/* expr.c */
SmVal sm_expr(SmCtx *c, const AstExpr *e);
SmVal sm_binary(SmCtx *c, AstOp op, SmVal a, SmVal b, Loc loc);
SmVal sm_unary(SmCtx *c, AstOp op, SmVal a, Loc loc);
int sm_resolve_type(SmCtx *c, const AstType *t, Type *out, int allow_tile);
SmVal sm_call(SmCtx *c, const AstExpr *e);
SmVal sm_const_expr(SmCtx *c, const AstExpr *e, const char *what);
SmVal sm_global_const(SmCtx *c, SmGlobal *g, Loc use);
int sm_const_int_arg(SmCtx *c, const SmVal *v, const char *what,
                     int64_t *out);

/* builtins.c */
int sm_has_builtin(const char *name);
int sm_builtin_is_pure(const char *name);
SmVal sm_builtin(SmCtx *c, const AstExpr *call, const SmVal *args);
SmVal sm_where(SmCtx *c, SmVal cond, SmVal a, SmVal b, Loc loc);

/* stmt.c */
void sm_block(SmCtx *c, const AstStmt *blk);
SmVal sm_inline(SmCtx *c, SmGlobal *fn, const AstExpr *call,
                const SmVal *args);

/* budget.c: each returns 0 (after a fatal error) once a budget is spent */
int sm_ops_ok(SmCtx *c, Loc at);
void sm_unroll_enter(SmCtx *c, Loc loop, int64_t n);
int sm_unroll_step(SmCtx *c);
void sm_unroll_leave(SmCtx *c);
int sm_inline_enter(SmCtx *c, const char *fn, Loc call);
void sm_inline_leave(SmCtx *c);

/* config.c */
void sm_compile_kernel(SmCtx *c, SmModule *m, const AstItem *k);
/* Reads and checks -D warps=N and -D stages=N into c; 0 on error. */
int sm_launch_defines(SmCtx *c);

/* grid.c */
GExpr *sm_gexpr(SmCtx *c, const AstExpr *e, IrKernel *k, const char *what);

#endif
