/* test_divide.c — division by an inverted divisor (lower/divide.c) equals
 * the plain division, `/` and `%`, signed and unsigned, for every pair of
 * operands at 8 and 12 bits, and for sampled pairs at 16 and 32 bits.
 *
 * What runs is the LLVM that lw_magic and lw_magic_div build (the same
 * calls the lowering makes, at any width): this file turns each function
 * into a list of steps and evaluates them on integers (no JIT, no
 * target). The plain division's results are Tile's (docs/language.md):
 * truncated toward zero, a zero divisor divides by 1, INT_MIN / -1 is
 * INT_MIN with remainder 0. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower/lw.h"
#include "tests/unit/check.h"

enum { MAXSTEPS = 128, MAXOPS = 3 };

/* One instruction: opcode, result width, operands (a step index, or -1
 * and a constant), the icmp predicate or the callee. */
typedef struct Step {
    LLVMOpcode op;
    unsigned bits;
    int nops;
    int ref[MAXOPS];
    uint64_t k[MAXOPS];
    int pred;
    unsigned obits;       /* the first operand's width */
    const char *callee;
} Step;

typedef struct Prog {
    Step s[MAXSTEPS];
    int n, q, r;          /* steps holding the quotient and the remainder */
    LLVMValueRef ins[MAXSTEPS];
} Prog;

static uint64_t mask(unsigned bits) { return bits >= 64 ? UINT64_MAX : (1ull << bits) - 1; }
static int64_t sx(uint64_t v, unsigned bits) {
    return bits >= 64 ? (int64_t)v : (int64_t)((v ^ (1ull << (bits - 1))) & mask(bits)) - (int64_t)(1ull << (bits - 1));
}

static int step_of(const Prog *p, LLVMValueRef v) {
    for (int i = 0; i < p->n; i++)
        if (p->ins[i] == v) return i;
    return -1;
}

/* fn's instructions (one block) as steps; q and r are instructions of it. */
static void compile_prog(Prog *p, LLVMValueRef fn, LLVMValueRef q, LLVMValueRef r) {
    p->n = 0;
    LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn);
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
        CHECK(p->n < MAXSTEPS);
        Step *s = &p->s[p->n];
        memset(s, 0, sizeof *s);
        s->op = LLVMGetInstructionOpcode(i);
        LLVMTypeRef t = LLVMTypeOf(i);
        s->bits = LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t) : 0;
        int n = LLVMGetNumOperands(i);
        if (s->op == LLVMCall) {
            size_t len;
            s->callee = LLVMGetValueName2(LLVMGetCalledValue(i), &len);
            n = (int)LLVMGetNumArgOperands(i);
        }
        CHECK(n <= MAXOPS);
        s->nops = n;
        for (int j = 0; j < n; j++) {
            LLVMValueRef o = LLVMGetOperand(i, (unsigned)j);
            if (LLVMIsAArgument(o))
                s->ref[j] = LLVMGetParam(fn, 0) == o ? -2 : -3;
            else if (LLVMIsAConstantInt(o)) {
                s->ref[j] = -1;
                s->k[j] = LLVMConstIntGetZExtValue(o);
            } else {
                s->ref[j] = step_of(p, o);
                CHECK(s->ref[j] >= 0);
            }
            if (j == 0 && LLVMGetTypeKind(LLVMTypeOf(o)) == LLVMIntegerTypeKind)
                s->obits = LLVMGetIntTypeWidth(LLVMTypeOf(o));
        }
        if (s->op == LLVMICmp) s->pred = LLVMGetICmpPredicate(i);
        p->ins[p->n++] = i;
    }
    p->q = step_of(p, q);
    p->r = step_of(p, r);
    CHECK(p->q >= 0 && p->r >= 0);
}

static uint64_t icmp(int pred, uint64_t a, uint64_t b, unsigned bits) {
    int64_t x = sx(a, bits), y = sx(b, bits);
    switch (pred) {
    case LLVMIntEQ: return a == b;
    case LLVMIntNE: return a != b;
    case LLVMIntULT: return a < b;
    case LLVMIntUGT: return a > b;
    case LLVMIntULE: return a <= b;
    case LLVMIntUGE: return a >= b;
    case LLVMIntSLT: return x < y;
    case LLVMIntSGT: return x > y;
    case LLVMIntSLE: return x <= y;
    case LLVMIntSGE: return x >= y;
    }
    CHECK(0);
    return 0;
}

static uint64_t call(const char *f, const uint64_t *a, unsigned bits) {
    if (!strncmp(f, "llvm.ctlz.", 10)) {
        unsigned n = 0;
        for (int i = (int)bits - 1; i >= 0 && !(a[0] >> i & 1); i--) n++;
        return n;
    }
    int sgn = !strcmp(f, "llvm.nvvm.mulhi.i");
    CHECK(sgn || !strcmp(f, "llvm.nvvm.mulhi.ui"));
    if (sgn) return (uint64_t)((sx(a[0], bits) * sx(a[1], bits)) >> bits);
    return (a[0] * a[1]) >> bits;
}

/* Runs p on (d, n); *q and *r get the two results. */
static void run(const Prog *p, uint64_t d, uint64_t n, uint64_t *q, uint64_t *r) {
    uint64_t v[MAXSTEPS];
    for (int i = 0; i < p->n; i++) {
        const Step *s = &p->s[i];
        uint64_t a[MAXOPS] = {0};
        unsigned ob = s->obits;
        for (int j = 0; j < s->nops; j++)
            a[j] = s->ref[j] >= 0 ? v[s->ref[j]] : s->ref[j] == -2 ? d : s->ref[j] == -3 ? n : s->k[j];
        uint64_t m = mask(s->bits), x;
        switch (s->op) {
        case LLVMAdd: x = a[0] + a[1]; break;
        case LLVMSub: x = a[0] - a[1]; break;
        case LLVMMul: x = a[0] * a[1]; break;
        case LLVMAnd: x = a[0] & a[1]; break;
        case LLVMOr: x = a[0] | a[1]; break;
        case LLVMXor: x = a[0] ^ a[1]; break;
        case LLVMShl: CHECK(a[1] < s->bits); x = a[0] << a[1]; break;
        case LLVMLShr: CHECK(a[1] < s->bits); x = a[0] >> a[1]; break;
        case LLVMAShr: CHECK(a[1] < s->bits); x = (uint64_t)(sx(a[0], s->bits) >> a[1]); break;
        case LLVMUDiv: CHECK(a[1] != 0); x = a[0] / a[1]; break;
        case LLVMSelect: x = a[0] ? a[1] : a[2]; break;
        case LLVMICmp: x = icmp(s->pred, a[0], a[1], ob); break;
        case LLVMZExt: case LLVMTrunc: x = a[0]; break;
        case LLVMSExt: x = (uint64_t)sx(a[0], ob); break;
        case LLVMCall: x = call(s->callee, a, s->bits); break;
        case LLVMRet: x = 0; break;
        default: fprintf(stderr, "unexpected opcode %d\n", s->op); CHECK(0); x = 0;
        }
        v[i] = x & m;
    }
    *q = v[p->q];
    *r = v[p->r];
}

/* Tile's n / d and n % d at `bits` (operands given in their low bits). */
static void plain(int sgn, unsigned bits, uint64_t d, uint64_t n, uint64_t *q, uint64_t *r) {
    uint64_t m = mask(bits);
    if (d == 0) {
        *q = n, *r = 0;
        return;
    }
    if (!sgn) {
        *q = n / d, *r = n % d;
        return;
    }
    int64_t x = sx(n, bits), y = sx(d, bits);
    if (y == -1) {    /* INT_MIN / -1 wraps to INT_MIN */
        *q = (uint64_t)-x & m, *r = 0;
        return;
    }
    *q = (uint64_t)(x / y) & m;
    *r = (uint64_t)(x % y) & m;
}

/* The function (d, n) -> n % d of width bits, built by divide.c. */
static void build(LwCtx *c, Prog *p, unsigned bits, int sgn) {
    LLVMTypeRef t = LLVMIntTypeInContext(c->ctx, bits);
    LLVMTypeRef pt[2] = {t, t};
    LLVMValueRef fn = LLVMAddFunction(c->mod, "divrem", LLVMFunctionType(t, pt, 2, 0));
    LLVMPositionBuilderAtEnd(c->b, LLVMAppendBasicBlockInContext(c->ctx, fn, "entry"));
    LwMagic *mg = lw_magic(c, LLVMGetParam(fn, 0), sgn);
    LLVMValueRef q = lw_magic_div(c, mg, 0, LLVMGetParam(fn, 1));
    LLVMValueRef r = lw_magic_div(c, mg, 1, LLVMGetParam(fn, 1));
    LLVMBuildRet(c->b, r);
    compile_prog(p, fn, q, r);
    LLVMDeleteFunction(fn);
}

static long mismatches;

static void check_pair(const Prog *p, int sgn, unsigned bits, uint64_t d, uint64_t n) {
    uint64_t q, r, eq, er;
    run(p, d & mask(bits), n & mask(bits), &q, &r);
    plain(sgn, bits, d & mask(bits), n & mask(bits), &eq, &er);
    if (q != eq || r != er) {
        if (mismatches++ < 8)
            fprintf(stderr, "%s %u bits: %llu / %llu gave %llu rem %llu, want %llu rem %llu\n",
                    sgn ? "signed" : "unsigned", bits, (unsigned long long)n,
                    (unsigned long long)d, (unsigned long long)q, (unsigned long long)r,
                    (unsigned long long)eq, (unsigned long long)er);
    }
}

/* Every pair at 8 and 12 bits. */
static void test_exhaustive(LwCtx *c) {
    static Prog p;
    const unsigned widths[] = {8, 12};
    for (int w = 0; w < 2; w++)
        for (int sgn = 0; sgn < 2; sgn++) {
            build(c, &p, widths[w], sgn);
            for (uint64_t d = 0; d <= mask(widths[w]); d++)
                for (uint64_t n = 0; n <= mask(widths[w]); n++)
                    check_pair(&p, sgn, widths[w], d, n);
        }
    CHECK(mismatches == 0);
}

/* 16 and 32 bits (mul.hi): divisors near powers of two, their negations
 * and the extremes, and random ones, against numerators alike. */
static void test_sampled(LwCtx *c) {
    static Prog p;
    uint64_t vals[256];
    for (unsigned bits = 16; bits <= 32; bits += 16)
        for (int sgn = 0; sgn < 2; sgn++) {
            int nv = 0;
            for (int e = 0; e < (int)bits; e++)
                for (int o = -1; o <= 1; o++) {
                    vals[nv++] = (1ull << e) + (uint64_t)o;
                    vals[nv++] = -((1ull << e) + (uint64_t)o);
                }
            uint64_t x = 0x9e3779b97f4a7c15ull;
            while (nv < 256) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                vals[nv] = x >> (nv % 29);
                nv++;
            }
            build(c, &p, bits, sgn);
            for (int i = 0; i < nv; i++)
                for (int j = 0; j < nv; j++) check_pair(&p, sgn, bits, vals[i], vals[j]);
            for (uint64_t n = 0; n < 4096; n++)
                for (int i = 0; i < 16; i++) check_pair(&p, sgn, bits, vals[i * 13 % nv], n * 997);
        }
    CHECK(mismatches == 0);
}

int main(void) {
    Arena *ar = ar_new();
    LwCtx c = {.ar = ar};
    c.ctx = LLVMContextCreate();
    c.mod = LLVMModuleCreateWithNameInContext("divide", c.ctx);
    c.b = LLVMCreateBuilderInContext(c.ctx);
    c.i1 = LLVMInt1TypeInContext(c.ctx);
    test_exhaustive(&c);
    test_sampled(&c);
    LLVMDisposeBuilder(c.b);
    LLVMDisposeModule(c.mod);
    LLVMContextDispose(c.ctx);
    ar_free(ar);
    return check_done("test_divide");
}
