/*
 * run.c — the driver of the interpreter: storage for values, the grid
 * loop, structured control flow, device_print and device_assert.
 *
 * Setup walks the kernel once to give every value (op results and block
 * arguments) its slots in one allocation, sized from the static types; the
 * programs then run without allocating. Programs run one after another, x
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

typedef struct Sizes {
    int64_t *numel;        /* value id -> numel, -1 when not in the kernel */
    int64_t total, stage;  /* all slots; the largest block's argument slots */
} Sizes;

static void size_value(Sizes *s, const IrValue *v) {
    s->numel[v->id] = ty_numel(v->ty);
    s->total += s->numel[v->id];
}

static void size_block(Sizes *s, const IrBlock *b) {
    int64_t args = 0;
    for (int i = 0; i < b->nargs; i++) {
        size_value(s, b->args[i]);
        args += ty_numel(b->args[i]->ty);
    }
    if (args > s->stage) s->stage = args;
    for (const IrOp *op = b->first; op; op = op->next) {
        for (int i = 0; i < op->nres; i++) size_value(s, op->res[i]);
        for (int r = 0; r < op->nregions; r++)
            if (op->regions[r]) size_block(s, op->regions[r]);
    }
}

/* Gives every value its slots; returns the allocation (one block). */
static IpSlot *alloc_values(IpMachine *m) {
    const IrKernel *k = m->k;
    int nv = k->nvalues;
    Sizes s = {calloc((size_t)nv + 1, sizeof(int64_t)), 0, 0};
    m->val = calloc((size_t)nv + 1, sizeof(IpSlot *));
    if (!s.numel || !m->val) abort();
    size_block(&s, k->body);
    IpSlot *all = calloc((size_t)(s.total + s.stage + 1), sizeof(IpSlot));
    if (!all) abort();
    int64_t at = 0;
    for (int id = 0; id < nv; id++)
        if (s.numel[id]) {
            m->val[id] = all + at;
            at += s.numel[id];
        }
    m->stage = all + at;
    free(s.numel);
    return all;
}

/* Binds the runtime arguments to the body's arguments: each pointer
 * parameter becomes a registered buffer. */
static void bind_args(IpMachine *m, const IpArg *args) {
    const IrKernel *k = m->k;
    m->buf = calloc((size_t)k->nparams + 1, sizeof(IpBuffer));
    if (!m->buf) abort();
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
}

/* --------------------------------------------------------- control flow */

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
        if (exec_block(m, body, &term)) return -1;
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
        if (exec_block(m, before, &cond)) return -1;
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
        if (exec_op(m, op)) return -1;
    }
    return 0;
}

int ip_run(const IrKernel *k, const IpArg *args, const uint32_t grid[3],
           Diag *dg, FILE *print) {
    if ((uint64_t)grid[0] * grid[1] * grid[2] == 0) return 0;
    IpMachine m = {.k = k, .dg = dg, .print = print ? print : stdout};
    IpSlot *slots = alloc_values(&m);
    bind_args(&m, args);
    memcpy(m.npid, grid, sizeof m.npid);
    int rc = 0;
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
