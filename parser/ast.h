/*
 * ast.h — the abstract syntax tree the parser builds and sema consumes.
 *
 * The tree is a faithful picture of the source, nothing more: names are not
 * resolved, types are not known, and `x as f32` or `zeros([4], f32)` keep
 * their type names as plain names (sema decides whether `f32` or a
 * compile-time parameter `T` names a type). Every node carries the source
 * range it came from, so any later stage can point at exactly the text it
 * complains about.
 *
 * Three node families — items, statements, expressions — each a struct with
 * a kind tag and a union-free set of fields; the fields a kind uses are
 * listed beside it. Lists are arrays with counts (AstList), allocated in the
 * compilation's arena.
 */
#ifndef TILE_AST_H
#define TILE_AST_H

#include "../base/base.h"

typedef struct AstExpr AstExpr;
typedef struct AstStmt AstStmt;
typedef struct AstType AstType;
typedef struct AstItem AstItem;

typedef enum {
    OP_OROR, OP_ANDAND,             /* scalar bool only */
    OP_OR, OP_XOR, OP_AND,          /* bitwise / element-wise logical */
    OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
    OP_SHL, OP_SHR,
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
    OP_NEG, OP_NOT, OP_BITNOT,      /* unary - ! ~ */
} AstOp;

typedef enum {
    E_INT,      /* ival (u64 value of the literal; sema checks the range) */
    E_FLOAT,    /* fval, text (the literal as written) */
    E_BOOL,     /* ival 0/1 */
    E_NONE,     /* None (in index lists: a new axis) */
    E_INF,      /* inf */
    E_STR,      /* text: contents with escapes decoded */
    E_NAME,     /* name */
    E_UNARY,    /* op, lhs */
    E_BINARY,   /* op, lhs, rhs */
    E_CAST,     /* lhs as type */
    E_CALL,     /* name(args..., names[i]=args[i]...) ; nargs positional
                   first, then nnamed named ones, both in args/names */
    E_INDEX,    /* lhs[args...]: each arg is E_SLICE, E_NONE or an expr */
    E_SLICE,    /* ':' inside an index list; lo:hi with lhs, rhs (each
                   NULL when left out) */
    E_LIST,     /* [args...] — shapes and lists in attributes */
} AstExprKind;

struct AstExpr {
    AstExprKind kind;
    Loc loc;             /* whole expression */
    Loc nloc;            /* E_CALL: the callee name */
    AstOp op;
    uint64_t ival;
    double fval;
    const char *name;    /* E_NAME, E_CALL */
    const char *text;    /* E_STR, E_FLOAT */
    AstExpr *lhs, *rhs;
    AstType *type;       /* E_CAST */
    AstExpr **args;      /* E_CALL, E_INDEX, E_LIST */
    int nargs;           /* positional (E_CALL) or all (E_INDEX, E_LIST) */
    const char **names;  /* E_CALL: names of args[nargs .. nargs+nnamed) */
    Loc *nlocs;          /* E_CALL: locations of those names */
    int nnamed;
};

typedef enum {
    T_NAME,     /* name: f32, i32, bool, type, or a parameter such as T */
    T_PTR,      /* *elem */
    T_TILE,     /* name[dims...] */
} AstTypeKind;

struct AstType {
    AstTypeKind kind;
    Loc loc;
    const char *name;    /* T_NAME, T_TILE */
    AstType *elem;       /* T_PTR */
    AstExpr **dims;      /* T_TILE */
    int ndims;
};

typedef enum {
    S_LET,      /* name [: type] = value */
    S_VAR,      /* name [: type] = value */
    S_ASSIGN,   /* name op= value ; op is OP_ADD.. for +=, or -1 for = */
    S_IF,       /* if cond body [else els]; els is S_BLOCK or S_IF */
    S_FOR,      /* for name in iter body; iter is a call: range(...) or
                   static_range(...) */
    S_WHILE,    /* while cond body */
    S_RETURN,   /* return [value] */
    S_EXPR,     /* value ; (includes static_assert(...) calls) */
    S_BLOCK,    /* { body... } */
} AstStmtKind;

struct AstStmt {
    AstStmtKind kind;
    Loc loc;
    Loc nloc;            /* the bound or assigned name */
    const char *name;
    int op;
    AstType *type;
    AstExpr *value, *cond, *iter;
    AstStmt **body;      /* S_BLOCK: statements; S_IF/S_FOR/S_WHILE: one
                            S_BLOCK */
    int nbody;
    AstStmt *els;
};

/* @name(args) — the arguments use the call syntax, so `@tune(B = [1, 2])`
 * is an attribute with one named argument whose value is an E_LIST. */
typedef struct AstAttr {
    Loc loc;
    const char *name;
    AstExpr *call;       /* E_CALL node holding the arguments (name = attr
                            name); NULL when written without parentheses */
} AstAttr;

/* A runtime parameter (`x: *f32`), a fn parameter (`x`, `x: f32[64]`) or a
 * compile-time parameter (`BLOCK: i32 = 1024`, `T: type = f32`). */
typedef struct AstParam {
    Loc loc;
    const char *name;
    AstType *type;       /* NULL when not annotated (fn parameters) */
    AstExpr *deflt;      /* compile-time parameters only */
} AstParam;

typedef enum {
    I_IMPORT,   /* path */
    I_CONST,    /* name [: type] = value */
    I_FN,       /* name(params) body */
    I_KERNEL,   /* attrs kernel name<cparams>(params) grid(...) body */
} AstItemKind;

struct AstItem {
    AstItemKind kind;
    Loc loc;
    Loc nloc;            /* the item's name, or the import path string */
    const char *name;
    const char *path;    /* I_IMPORT */
    AstType *type;       /* I_CONST */
    AstExpr *value;      /* I_CONST */
    AstAttr *attrs;
    int nattrs;
    AstParam *cparams;
    int ncparams;
    AstParam *params;
    int nparams;
    AstExpr **grid;      /* I_KERNEL; ngrid == 0 when there is no grid() */
    int ngrid;
    Loc gloc;            /* the grid(...) clause */
    AstStmt *body;       /* S_BLOCK */
};

typedef struct AstFile {
    const char *path;
    uint32_t file;       /* Diag file index */
    AstItem **items;
    int nitems;
} AstFile;

#endif
