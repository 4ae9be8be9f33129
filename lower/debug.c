/*
 * debug.c — device_print, device_assert, debug_barrier, and `-g` line
 * info.
 *
 * device_print prints what the interpreter prints, one line per element
 * through CUDA's vprintf (`pid (x, y, z) idx (i, j) fmt value`; floats as
 * %.9g, f64 as %.17g, pointers as %p), each element once: only the owner
 * of a replicated element prints it. Lines of different threads come out
 * in the order the GPU runs them.
 *
 * device_assert reaches the lowering only with -g (sema drops it
 * otherwise). A false element calls __assertfail(message, file, line,
 * function, 1), which the driver reports and which stops the kernel
 * (the CUDA context is then unusable, as with CUDA's assert).
 *
 * Line info: with -g, a DIBuilder compile unit with emission kind
 * DebugDirectivesOnly (3) — that gives PTX `.file`/`.loc` directives
 * without making ptxas compile for debugging (LineTablesOnly costs
 * registers) — one subprogram per entry and each instruction located at
 * the source of the op it comes from.
 */
#include "lower/lw.h"

#include <string.h>

/* ------------------------------------------------------------ line info */

static LLVMMetadataRef lw_di_file(LwCtx *c, uint32_t file) {
    while (c->di_files.n <= (int)file) vec_push(c->ar, &c->di_files, NULL);
    if (!c->di_files.v[file]) {
        const char *path = dg_file_path(c->dg, file);
        if (!path) path = "<unknown>";
        const char *slash = strrchr(path, '/');
        const char *dir = slash ? ar_strndup(c->ar, path, (size_t)(slash - path)) : ".";
        const char *name = slash ? slash + 1 : path;
        c->di_files.v[file] = LLVMDIBuilderCreateFile(c->di, name, strlen(name),
                                                      dir, strlen(dir));
    }
    return c->di_files.v[file];
}

void lw_di_init(LwCtx *c, const char *path) {
    (void)path;
    c->di = LLVMCreateDIBuilder(c->mod);
    LLVMMetadataRef file = lw_di_file(c, 0);
    c->di_cu = LLVMDIBuilderCreateCompileUnit(
        c->di, LLVMDWARFSourceLanguageC, file, "tilec", 5, 1, "", 0, 0, "", 0,
        (LLVMDWARFEmissionKind)3 /* DebugDirectivesOnly */, 0, 0, 0, "", 0,
        "", 0);
    LLVMAddModuleFlag(c->mod, LLVMModuleFlagBehaviorWarning,
                      "Debug Info Version", 18,
                      LLVMValueAsMetadata(lw_i32(c, LLVMDebugMetadataVersion())));
    LLVMAddModuleFlag(c->mod, LLVMModuleFlagBehaviorWarning, "Dwarf Version",
                      13, LLVMValueAsMetadata(lw_i32(c, 4)));
}

void lw_di_kernel(LwFn *f, const char *name) {
    LwCtx *c = f->c;
    if (!c->di) return;
    LLVMMetadataRef file = lw_di_file(c, f->k->loc.file);
    LLVMMetadataRef ty = LLVMDIBuilderCreateSubroutineType(c->di, file, NULL,
                                                           0, LLVMDIFlagZero);
    f->di_sp = LLVMDIBuilderCreateFunction(
        c->di, file, name, strlen(name), name, strlen(name), file,
        f->k->loc.line, ty, 0, 1, f->k->loc.line, LLVMDIFlagZero, 1);
    LLVMSetSubprogram(f->fn, f->di_sp);
}

void lw_set_loc(LwFn *f, Loc l) {
    LwCtx *c = f->c;
    if (!f->di_sp || l.line == 0) return;
    LLVMMetadataRef scope = f->di_sp;
    if (l.file != f->k->loc.file)   /* an inlined fn from another file */
        scope = LLVMDIBuilderCreateLexicalBlockFile(c->di, f->di_sp,
                                                    lw_di_file(c, l.file), 0);
    LLVMSetCurrentDebugLocation2(
        c->b, LLVMDIBuilderCreateDebugLocation(c->ctx, l.line, l.col, scope, NULL));
}

/* --------------------------------------------------------------- print */

static LLVMValueRef lw_vprintf(LwCtx *c) {
    LLVMValueRef fn = LLVMGetNamedFunction(c->mod, "vprintf");
    if (!fn) {
        LLVMTypeRef p[2] = {c->gen_ptr, c->gen_ptr};
        fn = LLVMAddFunction(c->mod, "vprintf", LLVMFunctionType(c->i32, p, 2, 0));
    }
    return fn;
}

static LLVMValueRef lw_cstring(LwFn *f, const char *s) {
    return LLVMBuildGlobalStringPtr(f->c->b, s, "");
}

/* printf conversion of one element of kind k, and its vararg value. */
static const char *lw_conv(LwFn *f, ScalarKind k, LLVMValueRef *v) {
    LwCtx *c = f->c;
    if (ty_isfloat(k)) {
        *v = k == SK_F64 ? *v : LLVMBuildFPExt(c->b, *v, c->f64, "");
        return k == SK_F64 ? "%.17g" : "%.9g";
    }
    if (k == SK_PTR) return "%p";
    if (ty_issigned(k)) {
        *v = LLVMBuildSExt(c->b, *v, c->i64, "");
        if (ty_bits(k) == 64) *v = LLVMBuildBitCast(c->b, *v, c->i64, "");
        return "%lld";
    }
    *v = ty_bits(k) == 64 ? *v : LLVMBuildZExt(c->b, *v, c->i64, "");
    return "%llu";
}

/* A format literal with '%' escaped. */
static void lw_put_literal(Buf *b, const char *s) {
    for (; *s; s++) {
        if (*s == '%') buf_putc(b, '%');
        buf_putc(b, *s);
    }
}

/* One vprintf call: fmt with args (i32/i64/double/ptr) packed into a local
 * buffer, each at its natural alignment. */
static void lw_emit_printf(LwFn *f, const char *fmt, LLVMValueRef *args, int n) {
    LwCtx *c = f->c;
    LLVMTypeRef *ts = ar_alloc(c->ar, sizeof(LLVMTypeRef) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) ts[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef st = LLVMStructTypeInContext(c->ctx, ts, (unsigned)n, 0);
    LLVMValueRef buf = LLVMConstNull(c->gen_ptr);
    if (n) {   /* a static alloca: in the entry block */
        LLVMBuilderRef eb = LLVMCreateBuilderInContext(c->ctx);
        LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(f->fn);
        LLVMValueRef first = LLVMGetFirstInstruction(entry);
        if (first) LLVMPositionBuilderBefore(eb, first);
        else LLVMPositionBuilderAtEnd(eb, entry);
        buf = LLVMBuildAlloca(eb, st, "");
        LLVMDisposeBuilder(eb);
    }
    for (int i = 0; i < n; i++)
        LLVMBuildStore(c->b, args[i], LLVMBuildStructGEP2(c->b, st, buf, (unsigned)i, ""));
    LLVMValueRef a[2] = {lw_cstring(f, fmt), buf};
    lw_call(c, lw_vprintf(c), a, 2);
}

void lw_print(LwFn *f, const IrOp *op) {
    LwCtx *c = f->c;
    const char *fmt = op->sattr ? op->sattr : "";
    size_t len = strlen(fmt);
    LLVMValueRef pid[3];
    for (int i = 0; i < 3; i++) {
        char name[40];
        snprintf(name, sizeof name, "llvm.nvvm.read.ptx.sreg.ctaid.%c", "xyz"[i]);
        pid[i] = lw_call_intr(c, name, NULL, 0, NULL, 0);
    }
    LLVMValueRef thread0 = lw_owner(f, NULL, 0, NULL);
    if (op->nargs == 0) {
        Buf b = {0};
        buf_puts(&b, "pid (%u, %u, %u) ");
        lw_put_literal(&b, fmt);
        buf_putc(&b, '\n');
        LLVMBasicBlockRef join = lw_only_if(f, thread0, "print", "print.join");
        lw_emit_printf(f, b.s, pid, 3);
        lw_join(f, join);
        buf_free(&b);
        return;
    }
    for (int a = 0; a < op->nargs; a++) {
        const IrValue *v = op->args[a];
        const Layout *l = v->layout;
        ScalarKind k = (ScalarKind)v->ty.k;
        LwVal x = *lw_val(f, v);
        for (int r = 0; r < x.n; r++) {
            int first;
            LLVMValueRef own = lw_owner(f, l, r, &first);
            if (!first) continue;
            own = lw_pad_and(f, v, l, r, own);   /* padding prints nothing */
            LLVMValueRef args[3 + IR_MAXRANK + 1];
            int n = 0;
            Buf b = {0};
            buf_puts(&b, "pid (%u, %u, %u) idx (");
            for (int i = 0; i < 3; i++) args[n++] = pid[i];
            for (int d = 0; d < v->ty.rank; d++) {
                buf_puts(&b, d ? ", %u" : "%u");
                args[n++] = lw_coord(f, l, r, d);
            }
            buf_puts(&b, ") ");
            lw_put_literal(&b, fmt);
            if (len && fmt[len - 1] != ' ') buf_putc(&b, ' ');
            if (op->nargs > 1) buf_printf(&b, "(operand %d) ", a);
            LLVMValueRef e = x.r[r];
            buf_puts(&b, lw_conv(f, k, &e));
            buf_putc(&b, '\n');
            args[n++] = e;
            LLVMBasicBlockRef join = lw_only_if(f, own ? own : LLVMConstInt(c->i1, 1, 0),
                                                "print", "print.join");
            lw_emit_printf(f, b.s, args, n);
            lw_join(f, join);
            buf_free(&b);
        }
    }
}

/* ------------------------------------------------------------- assert */

void lw_assert(LwFn *f, const IrOp *op) {
    LwCtx *c = f->c;
    const IrValue *v = op->args[0];
    LwVal x = *lw_val(f, v);
    LLVMValueRef ok = NULL;
    for (int r = 0; r < x.n; r++) {   /* the padding's lanes hold: it asserts nothing */
        LLVMValueRef pad = lw_pad_and(f, v, v->layout, r, NULL);
        LLVMValueRef holds = pad ? LLVMBuildOr(c->b, x.r[r], LLVMBuildNot(c->b, pad, ""), "")
                                 : x.r[r];
        ok = ok ? LLVMBuildAnd(c->b, ok, holds, "") : holds;
    }
    LLVMBasicBlockRef fail = lw_new_bb(f, "assert.fail"), join = lw_new_bb(f, "assert.ok");
    LLVMBuildCondBr(c->b, ok, join, fail);
    LLVMPositionBuilderAtEnd(c->b, fail);
    LLVMValueRef fn = LLVMGetNamedFunction(c->mod, "__assertfail");
    if (!fn) {
        LLVMTypeRef p[5] = {c->gen_ptr, c->gen_ptr, c->i32, c->gen_ptr, c->i64};
        fn = LLVMAddFunction(c->mod, "__assertfail", LLVMFunctionType(c->vd, p, 5, 0));
    }
    const char *path = dg_file_path(c->dg, op->loc.file);
    LLVMValueRef a[5] = {lw_cstring(f, op->sattr ? op->sattr : ""),
                         lw_cstring(f, path ? path : "<unknown>"),
                         lw_i32(c, op->loc.line), lw_cstring(f, f->k->name),
                         LLVMConstInt(c->i64, 1, 0)};
    lw_call(c, fn, a, 5);
    LLVMBuildBr(c->b, join);
    LLVMPositionBuilderAtEnd(c->b, join);
}
