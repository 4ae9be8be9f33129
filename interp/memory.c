/*
 * memory.c — pointer arithmetic, loads, stores and atomics.
 *
 * Every pointer names the buffer it was derived from, so an access is
 * checked against exactly that buffer's extent: `x + n` one past the end
 * of `x` is an error even when another buffer happens to follow it in host
 * memory. Offsets count elements of the pointer's own pointee type, and
 * extents are kept in bytes, so a pointer cast only rescales the offset.
 *
 * Masked-off lanes are skipped before their address is even looked at (a
 * masked load yields `other`; a masked atomic yields zero as its "old
 * value"). Without `other` the language leaves a masked-off lane
 * unspecified, and the reference must not be kinder than the hardware: it
 * yields a poison value (see `poison`) that shows wherever a program lets
 * such a lane reach a result, rather than a 0 that would make a `sum` over
 * it right here and wrong on the GPU. Lanes of one op are processed in
 * row-major order, which makes atomics within a program sequential and
 * deterministic: with duplicate addresses, each lane sees the previous
 * lane's update. atomic_cas compares bit patterns, as the hardware does
 * (+0.0 and -0.0 differ, a NaN matches its own bits).
 *
 * Host memory is accessed with memcpy, so user buffers need no particular
 * alignment.
 */
#include "interp.h"

#include <math.h>
#include <string.h>

/* Returns the host address of element `p`, or NULL after reporting an
 * out-of-bounds `what` ("load of", "store to", "atomic on"). */
static unsigned char *address(IpMachine *m, const IrOp *op, const char *what,
                              uint64_t p, ScalarKind kind) {
    int b = ip_ptr_buf(p);
    int64_t off = ip_ptr_off(p), size = ty_bytes(kind);
    if (b < 1 || b > m->nbuf) {
        ip_fail(m, op, "%s an invalid pointer", what);
        return NULL;
    }
    IpBuffer *buf = &m->buf[b - 1];
    int64_t nelem = (int64_t)(buf->bytes / (size_t)size);
    if (off == IP_WILD) {
        ip_fail(m, op, "out-of-bounds %s '%s': element offset out of range "
                "(of %lld)", what, buf->name, (long long)nelem);
        return NULL;
    }
    if (off < 0 || off >= nelem) {
        ip_fail(m, op, "out-of-bounds %s '%s': element %lld of %lld", what,
                buf->name, (long long)off, (long long)nelem);
        return NULL;
    }
    return buf->data + off * size;
}

static IpSlot read_elem(ScalarKind k, const unsigned char *a) {
    IpSlot s = {0};
    union { int8_t i8; int16_t i16; int32_t i32; uint8_t u8; uint16_t u16;
            uint32_t u32; uint64_t u64; float f32; double f64; } u;
    memcpy(&u, a, (size_t)ty_bytes(k));
    switch (k) {
    case SK_BOOL: s.i = u.u8 != 0; break;
    case SK_I8: s.i = u.i8; break;
    case SK_I16: s.i = u.i16; break;
    case SK_I32: s.i = u.i32; break;
    case SK_U8: s.i = u.u8; break;
    case SK_U16: s.i = u.u16; break;
    case SK_U32: s.i = u.u32; break;
    case SK_I64: case SK_U64: case SK_PTR: s.u = u.u64; break;
    case SK_F16: s.f = ip_f16_to_double(u.u16); break;
    case SK_BF16: s.f = ip_bf16_to_double(u.u16); break;
    case SK_F32: s.f = u.f32; break;
    case SK_F64: s.f = u.f64; break;
    case SK_F8E4M3: case SK_F8E5M2: s.f = ty_f8_to_float(k, u.u8); break;
    default: break;
    }
    return s;
}

/* Encodes a canonical element in its memory format (n bytes). */
static void encode_elem(ScalarKind k, IpSlot s, unsigned char *out) {
    union { uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64; float f32;
            double f64; } u;
    switch (k) {
    case SK_BOOL: u.u8 = s.i != 0; break;
    case SK_I8: case SK_U8: u.u8 = (uint8_t)s.u; break;
    case SK_I16: case SK_U16: u.u16 = (uint16_t)s.u; break;
    case SK_I32: case SK_U32: u.u32 = (uint32_t)s.u; break;
    case SK_F16: u.u16 = ip_f16_from_double(s.f); break;
    case SK_BF16: u.u16 = ip_bf16_from_double(s.f); break;
    case SK_F32: u.f32 = (float)s.f; break;
    case SK_F64: u.f64 = s.f; break;
    case SK_F8E4M3: case SK_F8E5M2: u.u8 = ty_f8_bits(k, (float)s.f); break;
    default: u.u64 = s.u; break;
    }
    memcpy(out, &u, (size_t)ty_bytes(k));
}

/* The stride of an operand broadcast over the result: 0 for a scalar. */
static int64_t stride_of(const IrValue *v) { return ty_numel(v->ty) == 1 ? 0 : 1; }

/* ptradd: offsets wrap into "wild" rather than into another buffer. */
static int exec_ptradd(IpMachine *m, const IrOp *op) {
    const IpSlot *p = ip_val(m, op->args[0]), *d = ip_val(m, op->args[1]);
    int64_t sp = stride_of(op->args[0]), sd = stride_of(op->args[1]);
    IpSlot *r = ip_val(m, op->res[0]);
    int64_t n = ty_numel(op->res[0]->ty);
    for (int64_t i = 0; i < n; i++) {
        uint64_t ptr = p[i * sp].u;
        int64_t off = ip_ptr_off(ptr), delta = d[i * sd].i;
        if (off != IP_WILD) {
            if ((delta > 0 && delta > IP_OFF_MAX - off) ||
                (delta < 0 && delta < -IP_OFF_MAX - off))
                off = IP_WILD;
            else
                off += delta;
        }
        r[i].u = ip_ptr(ip_ptr_buf(ptr), off);
    }
    return 0;
}

/* A masked-off lane of a load without `other`: NaN for floats; for
 * integers the byte 0xA5 repeated and wrapped to the width (i32
 * -1515870811, u8 165), a value no small test input holds; for bool the
 * pattern's low bit, true (the GPU lowering happens to give 0, i.e.
 * false, so a bool mask built from such lanes differs); for a pointer an
 * invalid one (buffer 0xA5A5), which faults on access. */
static IpSlot poison(ScalarKind k) {
    IpSlot s;
    if (ty_isfloat(k))
        s.f = NAN;
    else
        s.i = ip_wrap(k, UINT64_C(0xA5A5A5A5A5A5A5A5));
    return s;
}

static int exec_load(IpMachine *m, const IrOp *op) {
    ScalarKind k = op->args[0]->ty.pointee, rk = op->res[0]->ty.k;
    const IpSlot *p = ip_val(m, op->args[0]);
    const IrValue *mv = op->iattr[0] & LOAD_MASK ? op->args[1] : NULL;
    const IrValue *ov = op->iattr[0] & LOAD_OTHER ? op->args[op->nargs - 1] : NULL;
    const IpSlot *mask = mv ? ip_val(m, mv) : NULL, *other = ov ? ip_val(m, ov) : NULL;
    int64_t sm = mv ? stride_of(mv) : 0, so = ov ? stride_of(ov) : 0;
    IpSlot *r = ip_val(m, op->res[0]), garbage = poison(rk);
    int64_t n = ty_numel(op->res[0]->ty);
    for (int64_t i = 0; i < n; i++) {
        if (mask && !mask[i * sm].i) {
            r[i] = other ? other[i * so] : garbage;
            continue;
        }
        unsigned char *a = address(m, op, "load of", p[i].u, k);
        if (!a) return -1;
        r[i] = read_elem(k, a);
        if (rk != k) r[i] = ip_convert(k, rk, r[i]);
    }
    return 0;
}

static int exec_store(IpMachine *m, const IrOp *op) {
    ScalarKind k = op->args[0]->ty.pointee, vk = op->args[1]->ty.k;
    const IpSlot *p = ip_val(m, op->args[0]), *v = ip_val(m, op->args[1]);
    const IpSlot *mask = op->nargs > 2 ? ip_val(m, op->args[2]) : NULL;
    int64_t sv = stride_of(op->args[1]), sm = mask ? stride_of(op->args[2]) : 0;
    int64_t n = ty_numel(op->args[0]->ty);
    for (int64_t i = 0; i < n; i++) {
        if (mask && !mask[i * sm].i) continue;
        unsigned char *a = address(m, op, "store to", p[i].u, k);
        if (!a) return -1;
        encode_elem(k, vk == k ? v[i * sv] : ip_convert(vk, k, v[i * sv]), a);
    }
    return 0;
}

/* The new memory value of an atomic read-modify-write. */
static IpSlot atomic_combine(AtomicKind ak, ScalarKind k, IpSlot old, IpSlot v) {
    IpSlot r = v;
    if (ak == ATOM_XCHG) return r;
    if (ty_isfloat(k)) {
        if (ak == ATOM_ADD)
            r.f = k == SK_F64 ? old.f + v.f : ip_round(k, (float)old.f + (float)v.f);
        else
            r.f = ak == ATOM_MAX ? fmax(old.f, v.f) : fmin(old.f, v.f);
        return r;
    }
    if (ak == ATOM_ADD) {
        r.i = ip_wrap(k, old.u + v.u);
        return r;
    }
    int less = ty_issigned(k) ? old.i < v.i : old.u < v.u;
    int keep_old = ak == ATOM_MAX ? !less : less;
    return keep_old ? old : v;
}

static int exec_atomic(IpMachine *m, const IrOp *op) {
    ScalarKind k = op->res[0]->ty.k;
    const IpSlot *p = ip_val(m, op->args[0]), *v = ip_val(m, op->args[1]);
    const IpSlot *mask = op->nargs > 2 ? ip_val(m, op->args[2]) : NULL;
    int64_t sv = stride_of(op->args[1]), sm = mask ? stride_of(op->args[2]) : 0;
    IpSlot *r = ip_val(m, op->res[0]);
    int64_t n = ty_numel(op->res[0]->ty);
    for (int64_t i = 0; i < n; i++) {
        if (mask && !mask[i * sm].i) {
            r[i] = (IpSlot){0};
            continue;
        }
        unsigned char *a = address(m, op, "atomic on", p[i].u, k);
        if (!a) return -1;
        IpSlot old = read_elem(k, a);
        encode_elem(k, atomic_combine((AtomicKind)op->iattr[0], k, old, v[i * sv]), a);
        r[i] = old;
    }
    return 0;
}

static int exec_cas(IpMachine *m, const IrOp *op) {
    ScalarKind k = op->res[0]->ty.k;
    const IpSlot *p = ip_val(m, op->args[0]), *c = ip_val(m, op->args[1]),
                 *v = ip_val(m, op->args[2]);
    int64_t sc = stride_of(op->args[1]), sv = stride_of(op->args[2]);
    IpSlot *r = ip_val(m, op->res[0]);
    int64_t n = ty_numel(op->res[0]->ty);
    size_t size = (size_t)ty_bytes(k);
    for (int64_t i = 0; i < n; i++) {
        unsigned char *a = address(m, op, "atomic on", p[i].u, k), cmp[8];
        if (!a) return -1;
        r[i] = read_elem(k, a);
        encode_elem(k, c[i * sc], cmp);
        if (memcmp(a, cmp, size) == 0) encode_elem(k, v[i * sv], a);
    }
    return 0;
}

int ip_exec_memory(IpMachine *m, const IrOp *op) {
    switch (op->op) {
    case IR_PTRADD: return exec_ptradd(m, op);
    case IR_LOAD: return exec_load(m, op);
    case IR_STORE: return exec_store(m, op);
    case IR_ATOMIC: return exec_atomic(m, op);
    case IR_ATOMIC_CAS: return exec_cas(m, op);
    default: return ip_fail(m, op, "internal error: '%s' is not a memory op",
                            ir_op_name[op->op]);
    }
}
