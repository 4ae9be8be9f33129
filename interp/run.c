/*
 * run.c — the driver of the interpreter: storage for values, the grid
 * loop, structured control flow, device_print and device_assert.
 *
 * Setup walks the kernel once to give every value (op results and block
 * arguments) its slots in one allocation, sized from the static types,
 * where values whose lifetimes do not overlap share slots (see Plan); the
 * programs then run without allocating. Every op executed and every loop
 * iteration is a step: the run's cancel flag is read and its step budget
 * (IpLimits) charged at each. Programs run one after another, x
 * fastest, then y, then z, so a kernel whose programs race on memory gets
 * one well-defined sequential answer.
 *
 * Control flow is the IR's structured form. A region runs op by op until
 * its terminator (yield or condition), whose operands the owning op copies
 * to their destination: the region's arguments for the next iteration, or
 * the op's results. When a yielded value is itself one of the destination
 * block's arguments (a loop that swaps two carried values), the copy goes
 * through a staging area so no argument is overwritten before it is read.
 *
 * A reduce or scan with a combiner runs its region once per pair of
 * elements it combines (ip_combine).
 *
 * `for` iterates iv = lo, lo + step, ... while iv < hi (iv > hi for a
 * negative step), counting in 64 bits, so the loop ends even when hi is
 * the largest value of iv's type; a zero step is a runtime error.
 */
#include "interp.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int ip_fail(IpMachine *m, const IrOp *op, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    dg_error(m->dg, op->loc, "%s, program (%" PRIu32 ", %" PRIu32 ", %" PRIu32 ")",
             msg, m->pid[0], m->pid[1], m->pid[2]);
    return -1;
}

const char *ip_index_str(char *buf, size_t n, Type t, int64_t i) {
    int64_t idx[IR_MAXRANK];
    for (int d = t.rank - 1; d >= 0; d--) {
        idx[d] = i % t.dim[d];
        i /= t.dim[d];
    }
    size_t len = (size_t)snprintf(buf, n, "(");
    for (int d = 0; d < t.rank && len < n; d++)
        len += (size_t)snprintf(buf + len, n - len, "%s%" PRId64, d ? ", " : "", idx[d]);
    if (len < n) snprintf(buf + len, n - len, ")");
    return buf;
}

/* ----------------------------------------------------------------- setup */

/* The storage plan. Ops are numbered in pre-order (an op before the ops
 * of its regions); span[p] is the last number inside op p. A value lives
 * from its definition to the end of the op, in its own block, that holds
 * its last use (a use inside a loop keeps it to the loop's end). Block
 * arguments live through their owner's whole span (its start and every
 * terminator write them), the kernel's arguments through the run, and the
 * results of an op with regions from the op's start, so that they share
 * storage with nothing inside. Lifetimes are closed intervals: an op's
 * results never share its operands' storage. */
typedef struct Plan {
    int nops, maxdepth;
    int *span;             /* op number -> the last op number inside it */
    int *start, *last;     /* value id -> first position (-1: not in the
                              kernel, -2: a kernel argument); op number
                              whose span ends its life */
    int *depth;            /* value id -> nesting depth of its definition */
    int *stack;            /* depth -> enclosing op number, while walking */
    int64_t *numel;        /* value id -> slots */
    int64_t stage;         /* the largest block's argument slots */
} Plan;

static void count_ops(Plan *pl, const IrBlock *b, int depth) {
    if (depth > pl->maxdepth) pl->maxdepth = depth;
    for (const IrOp *op = b->first; op; op = op->next) {
        pl->nops++;
        for (int r = 0; r < op->nregions; r++)
            if (op->regions[r]) count_ops(pl, op->regions[r], depth + 1);
    }
}

/* Block b's arguments, owned by op number p (-2: the kernel's). */
static void plan_args(Plan *pl, const IrBlock *b, int p) {
    int64_t slots = 0;
    for (int i = 0; i < b->nargs; i++) {
        int id = b->args[i]->id;
        pl->start[id] = pl->last[id] = p;
        slots += pl->numel[id] = ty_numel(b->args[i]->ty);
    }
    if (slots > pl->stage) pl->stage = slots;
}

static void plan_block(Plan *pl, const IrBlock *b, int depth, int *pos) {
    for (const IrOp *op = b->first; op; op = op->next) {
        int p = (*pos)++;
        pl->stack[depth] = p;
        for (int i = 0; i < op->nargs; i++) {
            const IrValue *v = op->args[i];
            if (v->def) pl->last[v->id] = pl->stack[pl->depth[v->id]];
        }
        for (int i = 0; i < op->nres; i++) {
            int id = op->res[i]->id;
            pl->start[id] = pl->last[id] = p;
            pl->depth[id] = depth;
            pl->numel[id] = ty_numel(op->res[i]->ty);
        }
        for (int r = 0; r < op->nregions; r++)
            if (op->regions[r]) {
                plan_args(pl, op->regions[r], p);
                plan_block(pl, op->regions[r], depth + 1, pos);
            }
        pl->span[p] = *pos - 1;
    }
}

typedef struct Ev {
    int key, id;
} Ev;

static int ev_cmp(const void *a, const void *b) {
    const Ev *x = a, *y = b;
    return x->key != y->key ? (x->key > y->key) - (x->key < y->key) : x->id - y->id;
}

static int i64_cmp(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Offsets (in slots) for the n values of ev[0..n) (by start; ev[n..2n)
 * the same by end): a value takes the storage of one of its size that is
 * dead by its start, else new storage. Returns the slots used. */
static int64_t assign_offsets(const Plan *pl, Ev *ev, int n, int64_t *off, int *next) {
    int64_t *sizes = malloc(sizeof *sizes * ((size_t)n + 1)), total = 0;
    int *heads = malloc(sizeof *heads * ((size_t)n + 1)), nsizes = 0;
    if (!sizes || !heads) {
        free(sizes);
        free(heads);
        return -1;
    }
    for (int i = 0; i < n; i++) sizes[i] = pl->numel[ev[i].id];
    qsort(sizes, (size_t)n, sizeof *sizes, i64_cmp);
    for (int i = 0; i < n; i++)
        if (!nsizes || sizes[nsizes - 1] != sizes[i]) sizes[nsizes++] = sizes[i];
    for (int i = 0; i < nsizes; i++) heads[i] = -1;
    /* cls is by position in ev's start order; next[] and off[] by id. */
    for (int i = 0; i < n; i++) {
        int64_t *c = bsearch(&pl->numel[ev[i].id], sizes, (size_t)nsizes, sizeof *sizes,
                             i64_cmp);
        next[ev[i].id] = (int)(c - sizes);   /* the class, until freed */
    }
    for (int i = 0, j = n; i < n; i++) {
        for (; j < 2 * n && ev[j].key < ev[i].key; j++) {
            int u = ev[j].id, c = next[u];
            next[u] = heads[c];
            heads[c] = u;
        }
        int v = ev[i].id, c = next[v];
        if (heads[c] >= 0) {
            int u = heads[c];
            heads[c] = next[u];
            next[u] = c;
            off[v] = off[u];
        } else {
            off[v] = total;
            total += pl->numel[v];
        }
    }
    free(sizes);
    free(heads);
    return total;
}

/* Gives every value its slots (values whose lifetimes do not overlap
 * share them); returns the allocation (one block), or NULL when out of
 * memory (*need: the slots it wanted, 0 when the plan itself failed). */
static IpSlot *alloc_values(IpMachine *m, int64_t *need) {
    const IrKernel *k = m->k;
    int nv = k->nvalues, pos = 0, n = 0;
    Plan pl = {0};
    count_ops(&pl, k->body, 0);
    size_t nint = (size_t)pl.nops + 5 * (size_t)nv + (size_t)pl.maxdepth + 2;
    int *ibuf = malloc(sizeof(int) * nint);
    int64_t *i64 = calloc(2 * (size_t)nv + 1, sizeof(int64_t));
    Ev *ev = malloc(sizeof(Ev) * (2 * (size_t)nv + 1));
    IpSlot *all = NULL;
    *need = 0;
    m->val = calloc((size_t)nv + 1, sizeof(IpSlot *));
    if (!ibuf || !i64 || !ev || !m->val) goto done;
    pl.span = ibuf;
    pl.start = pl.span + pl.nops;
    pl.last = pl.start + nv;
    pl.depth = pl.last + nv;
    int *next = pl.depth + nv;
    pl.stack = next + nv;
    pl.numel = i64;
    int64_t *off = i64 + nv;
    for (int id = 0; id < nv; id++) pl.start[id] = -1;
    plan_args(&pl, k->body, -2);
    plan_block(&pl, k->body, 0, &pos);
    for (int id = 0; id < nv; id++)
        if (pl.start[id] != -1) ev[n++] = (Ev){pl.start[id], id};
    for (int i = 0; i < n; i++) {
        int id = ev[i].id;
        ev[n + i] = (Ev){pl.start[id] == -2 ? INT32_MAX : pl.span[pl.last[id]], id};
    }
    qsort(ev, (size_t)n, sizeof *ev, ev_cmp);
    qsort(ev + n, (size_t)n, sizeof *ev, ev_cmp);
    int64_t total = assign_offsets(&pl, ev, n, off, next);
    if (total < 0) goto done;
    *need = total + pl.stage + 1;
    if ((uint64_t)*need <= SIZE_MAX / sizeof(IpSlot))
        all = calloc((size_t)*need, sizeof(IpSlot));
    if (!all) goto done;
    for (int i = 0; i < n; i++) m->val[ev[i].id] = all + off[ev[i].id];
    m->stage = all + total;
done:
    free(ibuf);
    free(i64);
    free(ev);
    return all;
}

/* Binds the runtime arguments to the body's arguments: each pointer
 * parameter becomes a registered buffer. */
static int bind_args(IpMachine *m, const IpArg *args) {
    const IrKernel *k = m->k;
    m->buf = calloc((size_t)k->nparams + 1, sizeof(IpBuffer));
    if (!m->buf) return -1;
    for (int i = 0; i < k->nparams; i++) {
        Type t = k->params[i].ty;
        IpSlot *v = ip_val(m, k->body->args[i]);
        if (t.k == SK_PTR) {
            m->buf[m->nbuf] = (IpBuffer){k->params[i].name, args[i].data, args[i].bytes};
            v->u = ip_ptr(++m->nbuf, 0);
        } else if (ty_isfloat(t.k)) {
            v->f = ip_round(t.k, args[i].f);
        } else {
            v->i = ip_wrap(t.k, (uint64_t)args[i].i);
            if (t.k == SK_BOOL) v->i = args[i].i != 0;
        }
    }
    return 0;
}

/* --------------------------------------------------------- control flow */

/* One step (an op, or a loop iteration) against the run's limits: the
 * cancel flag, read at every step, and the step budget. */
static inline int ip_step(IpMachine *m, const IrOp *op) {
    if (m->cancel && *m->cancel) return ip_fail(m, op, "run interrupted");
    if (m->max_steps && ++m->steps > m->max_steps)
        return ip_fail(m, op, "the run exceeded its limit of %" PRIu64 " steps "
                       "(TileRunOptions.max_steps or $TILE_INTERP_MAX_STEPS)", m->max_steps);
    return 0;
}

static int exec_block(IpMachine *m, const IrBlock *b, const IrOp **term);

/* Copies n values src[i] -> dst[i]; dst are op results or the arguments
 * of one block. */
static void transfer(IpMachine *m, IrValue *const *src, IrValue *const *dst, int n) {
    const IrBlock *into = n && !dst[0]->def ? dst[0]->block : NULL;
    int alias = 0;
    for (int i = 0; i < n && into; i++) alias |= !src[i]->def && src[i]->block == into;
    IpSlot *st = m->stage;
    for (int i = 0; i < n; i++) {
        size_t sz = sizeof(IpSlot) * (size_t)ty_numel(dst[i]->ty);
        if (alias) {
            memcpy(st, ip_val(m, src[i]), sz);
            st += ty_numel(dst[i]->ty);
        } else {
            memcpy(ip_val(m, dst[i]), ip_val(m, src[i]), sz);
        }
    }
    st = m->stage;
    for (int i = 0; alias && i < n; i++) {
        memcpy(ip_val(m, dst[i]), st, sizeof(IpSlot) * (size_t)ty_numel(dst[i]->ty));
        st += ty_numel(dst[i]->ty);
    }
}

/* lo, hi, step, inits...; region args (iv, carried...). */
static int exec_for(IpMachine *m, const IrOp *op) {
    const IrBlock *body = op->regions[0];
    int nc = op->nres;
    int64_t lo = ip_val(m, op->args[0])->i, hi = ip_val(m, op->args[1])->i,
            step = ip_val(m, op->args[2])->i;
    if (step == 0) return ip_fail(m, op, "for loop with a step of zero");
    transfer(m, op->args + 3, body->args + 1, nc);
    ScalarKind ivk = body->args[0]->ty.k;
    for (int64_t iv = lo; step > 0 ? iv < hi : iv > hi;) {
        const IrOp *term;
        ip_val(m, body->args[0])->i = ip_wrap(ivk, (uint64_t)iv);
        if (ip_step(m, op) || exec_block(m, body, &term)) return -1;
        if (term) transfer(m, term->args, body->args + 1, nc);
        if ((step > 0 && iv > INT64_MAX - step) || (step < 0 && iv < INT64_MIN - step))
            break;
        iv += step;
    }
    transfer(m, body->args + 1, op->res, nc);
    return 0;
}

static int exec_if(IpMachine *m, const IrOp *op) {
    int which = ip_val(m, op->args[0])->i ? 0 : 1;
    if (which >= op->nregions || !op->regions[which]) return 0;
    const IrOp *term;
    if (exec_block(m, op->regions[which], &term)) return -1;
    if (term && op->nres) transfer(m, term->args, op->res, op->nres);
    return 0;
}

/* inits...; "before" ends in condition(cond, values...), "after" in
 * yield(values for "before"). */
static int exec_while(IpMachine *m, const IrOp *op) {
    const IrBlock *before = op->regions[0], *after = op->regions[1];
    transfer(m, op->args, before->args, op->nargs);
    for (;;) {
        const IrOp *cond, *yield;
        if (ip_step(m, op) || exec_block(m, before, &cond)) return -1;
        if (!cond)
            return ip_fail(m, op, "internal error: while without a condition");
        if (!ip_val(m, cond->args[0])->i) {
            transfer(m, cond->args + 1, op->res, op->nres);
            return 0;
        }
        transfer(m, cond->args + 1, after->args, cond->nargs - 1);
        if (exec_block(m, after, &yield)) return -1;
        if (yield) transfer(m, yield->args, before->args, yield->nargs);
    }
}

/* --------------------------------------------------------------- debug */

static void print_elem(FILE *out, ScalarKind k, IpSlot v, const IpMachine *m) {
    switch (k) {
    case SK_F16: case SK_BF16: case SK_F32: fprintf(out, "%.9g", v.f); break;
    case SK_F64: fprintf(out, "%.17g", v.f); break;
    case SK_PTR: {
        int b = ip_ptr_buf(v.u);
        fprintf(out, "%s + %" PRId64, b >= 1 && b <= m->nbuf ? m->buf[b - 1].name : "?",
                ip_ptr_off(v.u));
        break;
    }
    default:
        if (ty_issigned(k))
            fprintf(out, "%" PRId64, v.i);
        else
            fprintf(out, "%" PRIu64, v.u);
    }
}

/* One line per element of each operand, as Triton prints:
 *   pid (0, 0, 0) idx (3) fmt value
 * with "(operand N) " after fmt when there are several operands. */
static int exec_print(IpMachine *m, const IrOp *op) {
    FILE *out = m->print;
    const char *fmt = op->sattr ? op->sattr : "";
    if (op->nargs == 0)
        fprintf(out, "pid (%" PRIu32 ", %" PRIu32 ", %" PRIu32 ") %s\n", m->pid[0],
                m->pid[1], m->pid[2], fmt);
    for (int a = 0; a < op->nargs; a++) {
        Type t = op->args[a]->ty;
        const IpSlot *v = ip_val(m, op->args[a]);
        for (int64_t i = 0, n = ty_numel(t); i < n; i++) {
            char idx[64];
            fprintf(out, "pid (%" PRIu32 ", %" PRIu32 ", %" PRIu32 ") idx %s ", m->pid[0],
                    m->pid[1], m->pid[2], ip_index_str(idx, sizeof idx, t, i));
            size_t len = strlen(fmt);
            fprintf(out, "%s%s", fmt, len && fmt[len - 1] != ' ' ? " " : "");
            if (op->nargs > 1) fprintf(out, "(operand %d) ", a);
            print_elem(out, t.k, v[i], m);
            fputc('\n', out);
        }
    }
    return 0;
}

static int exec_assert(IpMachine *m, const IrOp *op) {
    Type t = op->args[0]->ty;
    const IpSlot *c = ip_val(m, op->args[0]);
    for (int64_t i = 0, n = ty_numel(t); i < n; i++)
        if (!c[i].i) {
            char idx[64];
            return ip_fail(m, op, "device assertion failed: %s: index %s",
                           op->sattr ? op->sattr : "", ip_index_str(idx, sizeof idx, t, i));
        }
    return 0;
}

/* ------------------------------------------------------------- dispatch */

static int exec_op(IpMachine *m, const IrOp *op) {
    switch (op->op) {
    case IR_FOR: return exec_for(m, op);
    case IR_IF: return exec_if(m, op);
    case IR_WHILE: return exec_while(m, op);
    case IR_PRINT: return exec_print(m, op);
    case IR_ASSERT: return exec_assert(m, op);
    case IR_BARRIER: return 0;
    case IR_PTRADD: case IR_LOAD: case IR_STORE: case IR_ATOMIC:
    case IR_ATOMIC_CAS:
        return ip_exec_memory(m, op);
    case IR_CONST: case IR_PROGRAM_ID: case IR_NUM_PROGRAMS: case IR_ARANGE:
    case IR_SPLAT: case IR_BROADCAST: case IR_EXPAND_DIMS: case IR_RESHAPE:
    case IR_PERMUTE: case IR_REDUCE: case IR_SCAN: case IR_DOT:
    case IR_SLICE: case IR_CAT: case IR_GATHER: case IR_SORT:
    case IR_MULTIPLE_OF: case IR_MAX_CONTIG:
        return ip_exec_tile(m, op);
    case IR_YIELD: case IR_CONDITION:
        return 0;
    default:
        return ip_exec_elementwise(m, op);
    }
}

/* Runs b's ops; *term gets its yield/condition (NULL when it has none). */
static int exec_block(IpMachine *m, const IrBlock *b, const IrOp **term) {
    *term = NULL;
    for (const IrOp *op = b->first; op; op = op->next) {
        if (op->op == IR_YIELD || op->op == IR_CONDITION) {
            *term = op;
            return 0;
        }
        if (ip_step(m, op) || exec_op(m, op)) return -1;
    }
    return 0;
}

int ip_combine(IpMachine *m, const IrOp *op, IpSlot a, IpSlot b, IpSlot *out) {
    const IrBlock *blk = op->regions[0];
    const IrOp *term;
    ip_val(m, blk->args[0])[0] = a;
    ip_val(m, blk->args[1])[0] = b;
    if (exec_block(m, blk, &term)) return -1;
    if (!term || term->nargs != 1)
        return ip_fail(m, op, "internal error: a combiner without its yield");
    *out = ip_val(m, term->args[0])[0];
    return 0;
}

int ip_run(const IrKernel *k, const IpArg *args, const uint32_t grid[3],
           Diag *dg, FILE *print) {
    return ip_run_limited(k, args, grid, dg, print, NULL);
}

int ip_run_limited(const IrKernel *k, const IpArg *args, const uint32_t grid[3],
                   Diag *dg, FILE *print, const IpLimits *lim) {
    if ((uint64_t)grid[0] * grid[1] * grid[2] == 0) return 0;
    IpMachine m = {.k = k, .dg = dg, .print = print ? print : stdout};
    if (lim) {
        m.max_steps = lim->max_steps;
        m.cancel = lim->cancel;
    }
    int64_t need;
    IpSlot *slots = alloc_values(&m, &need);
    int rc = 0;
    if (!slots || bind_args(&m, args)) {
        if (need)
            dg_error(dg, k->loc, "out of memory: kernel '%s' needs %" PRId64 " MiB for "
                     "its live values", k->name, (need * (int64_t)sizeof(IpSlot)) >> 20);
        else
            dg_error(dg, k->loc, "out of memory setting up kernel '%s'", k->name);
        rc = -1;
    }
    memcpy(m.npid, grid, sizeof m.npid);
    for (uint32_t z = 0; z < grid[2] && !rc; z++)
        for (uint32_t y = 0; y < grid[1] && !rc; y++)
            for (uint32_t x = 0; x < grid[0] && !rc; x++) {
                m.pid[0] = x, m.pid[1] = y, m.pid[2] = z;
                const IrOp *term;
                rc = exec_block(&m, k->body, &term);
            }
    fflush(m.print);
    free(slots);
    free(m.val);
    free(m.buf);
    return rc;
}
