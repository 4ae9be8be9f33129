/*
 * map.c — string-keyed hash tables in an arena.
 *
 * Open addressing with linear probing, FNV-1a hashes, at most half full:
 * growing rehashes into fresh arena arrays and drops the old ones, which
 * costs O(n) memory over the table's life, like a Vec's growth. Keys are
 * not copied (they are AST or arena strings that outlive the table).
 * Entries are never removed.
 */
#include "base.h"

#include <string.h>

static uint64_t hash(const char *s) {
    uint64_t h = 14695981039346656037u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* The slot of `key`, or the empty slot where it would go (cap > 0). */
static size_t slot(const StrMap *m, const char *key) {
    size_t mask = m->cap - 1, i = (size_t)hash(key) & mask;
    while (m->keys[i] && strcmp(m->keys[i], key) != 0) i = (i + 1) & mask;
    return i;
}

void *map_get(const StrMap *m, const char *key) {
    if (!m->cap) return NULL;
    size_t i = slot(m, key);
    return m->keys[i] ? m->vals[i] : NULL;
}

static void grow(Arena *a, StrMap *m) {
    StrMap old = *m;
    m->cap = old.cap ? old.cap * 2 : 16;
    m->keys = ar_alloc(a, sizeof *m->keys * m->cap);
    m->vals = ar_alloc(a, sizeof *m->vals * m->cap);
    for (size_t i = 0; i < old.cap; i++)
        if (old.keys[i]) {
            size_t j = slot(m, old.keys[i]);
            m->keys[j] = old.keys[i];
            m->vals[j] = old.vals[i];
        }
}

void map_put(Arena *a, StrMap *m, const char *key, void *val) {
    if (2 * (m->n + 1) > m->cap) grow(a, m);
    size_t i = slot(m, key);
    if (!m->keys[i]) {
        m->keys[i] = key;
        m->n++;
    }
    m->vals[i] = val;
}
