/* The runtime of a program compiled by `deepcps compile`, in eight parts
 * written in this order at the top of every program it emits (values.c,
 * print.c, serial.c, trace.c, errors.c, calls.c, ops.c, data.c); the
 * program's lifted lambdas follow them. This part: values, objects and the
 * collector.
 *
 * Values are 64-bit words. An odd word is an integer of 63 bits; a word
 * whose low three bits are 010 is a constant (booleans, staging
 * constants); any other word points to an object: an integer that needs
 * all 64 bits, a float, a tuple, a closure, a string, a record, a map or a
 * matrix. Objects start with a header giving their type, how many raw
 * words follow it and how many values.
 *
 * Every call is a tail call: a lifted lambda sets SELF and the argument
 * registers A[0..NA) and returns to the trampoline, which calls the code
 * of SELF. So the C stack never grows with the program's calls.
 *
 * The collector runs only at the entry of a lambda, where the live values
 * are SELF and the arguments; allocation never fails (a full chunk is
 * followed by a new one) and asks for a collection, which the next entry
 * performs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>
#include <setjmp.h>

typedef uint64_t V;
typedef void (*Code)(void);

/* The runtime's state. A program in one C file owns it (static); a large
 * program is split into files compiled apart (compile/mod.rs,
 * `to_c_units`), the first of which defines it (RT_SHARED empty) and the
 * others declare it (RT_SHARED extern, RT_INIT dropping initializers).
 * The runtime's functions are each file's own. */
#ifndef RT_SHARED
#define RT_SHARED static
#define RT_INIT(...) = __VA_ARGS__
#endif

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

#define IS_INT(v) ((v) & 1)
#define INT_OF(v) ((int64_t)(v) >> 1)
#define MK_INT(n) ((((V)(n)) << 1) | 1)
#define V_FALSE ((V)0x02)
#define V_TRUE ((V)0x0A)
#define V_NEVER ((V)0x12)
#define V_ALWAYS ((V)0x1A)
#define IS_PTR(v) (((v) & 7) == 0)
#define MK_BOOL(b) ((b) ? V_TRUE : V_FALSE)

enum { T_BIGINT = 1, T_FLOAT, T_TUPLE, T_CLOS, T_FWD, T_STR, T_RECORD, T_MAP, T_MATRIX };
/* The header: type (bits 0-7), static (bit 8: a constant of the program,
 * never moved), raw words (bits 9-35), values (bits 36-63). */
#define HDR(t, nraw, nval, stat) ((uint64_t)(t) | ((uint64_t)(stat) << 8) | ((uint64_t)(nraw) << 9) | ((uint64_t)(nval) << 36))
#define OBJ(v) ((uint64_t *)(uintptr_t)(v))
#define TYPE(v) (OBJ(v)[0] & 0xff)
#define NRAW(v) ((OBJ(v)[0] >> 9) & 0x7ffffff)
#define IS_STATIC(v) ((OBJ(v)[0] >> 8) & 1)
#define NVAL(v) (OBJ(v)[0] >> 36)
#define FIELDS(v) ((V *)(OBJ(v) + 1 + NRAW(v)))
#define IS_TYPE(v, t) (IS_PTR(v) && TYPE(v) == (t))
#define CLO_CODE(v) ((Code)(uintptr_t)OBJ(v)[1])
#define CLO_INFO(v) ((int)OBJ(v)[2])
#define ENV(v) ((V *)(OBJ(v) + 3))

/* ---- error kinds (the machine's names) ---- */
enum { K_ARITY, K_TYPE, K_DIV0, K_INDEX, K_OVERFLOW, K_UNKNOWN_FN, K_MISSING_KEY, K_NOT_FN, K_NOT_FINITE };
static const char *const KIND_NAME[] = {"arity", "type", "division-by-zero", "index-out-of-range", "overflow",
                                        "unknown-function", "missing-key", "not-a-function", "not-finite"};
static const char *const KIND_LABEL[] = {
    "this gets the wrong number of arguments", "this has a value of the wrong kind", "this divides by zero",
    "this index is out of range", "this overflows", "this function does not exist", "this key is missing",
    "this is not a function", "this is not a finite number"};

/* What the generator tells the runtime about each lambda and error site. */
typedef struct {
    const char *shown; /* `(x, k) { … }` as an error message shows it */
    const char *params; /* `(x, k)` */
    int fixed;          /* parameters other than the rest parameter */
    int rest;           /* position of the rest parameter, or -1 */
} FunInfo;
/* The lambdas of the program that runs (set by its start function). */
RT_SHARED const FunInfo *FUNS;
/* Its image: its sources and the places of its error sites and steps,
 * which the runtime library reads (machine/src/compile/image.rs). */
RT_SHARED const char *IMAGE;
RT_SHARED size_t IMAGE_LEN;

/* The runtime library (machine/rt, linked into every program): the
 * machine's own reports and printer. Each returns a text to free with
 * deepcps_rt_free, or NULL if it cannot (the image does not fit). */
extern char *deepcps_rt_report(const char *image, size_t image_len, uint32_t site, uint32_t kind,
                               int lambda, const char *message, const char *label,
                               const uint32_t *steps, size_t n_steps, int traced, int color);
extern char *deepcps_rt_value(const char *image, size_t image_len, const unsigned char *value,
                              size_t len, int short_form);
extern void deepcps_rt_free(char *text);

/* ---- the heap ---- */
typedef struct Chunk { struct Chunk *next; uint64_t *start, *end; } Chunk;
RT_SHARED Chunk *chunks;
RT_SHARED uint64_t *hp, *hlim;
RT_SHARED size_t since_gc, gc_threshold RT_INIT((size_t)8 << 20), live_after_gc;
RT_SHARED int gc_pending;

static void new_chunk(size_t words) {
    size_t n = words < ((size_t)1 << 17) ? ((size_t)1 << 17) : words;
    Chunk *c = malloc(sizeof(Chunk) + n * 8);
    if (!c) { fputs("deepcps: out of memory\n", stderr); exit(3); }
    c->start = (uint64_t *)(c + 1);
    c->end = c->start + n;
    c->next = chunks;
    chunks = c;
    hp = c->start;
    hlim = c->end;
}

static inline uint64_t *alloc(size_t words) {
    if (UNLIKELY(hp + words > hlim)) new_chunk(words);
    uint64_t *p = hp;
    hp += words;
    since_gc += words * 8;
    if (UNLIKELY(since_gc > gc_threshold)) gc_pending = 1;
    return p;
}

/* The argument registers. */
RT_SHARED V *A;
RT_SHARED size_t NA, ACAP;
RT_SHARED V SELF;
RT_SHARED int CALL_SITE;

static void grow_args(size_t n) {
    if (n <= ACAP) return;
    size_t cap = ACAP ? ACAP : 16;
    while (cap < n) cap *= 2;
    A = realloc(A, cap * sizeof(V));
    if (!A) { fputs("deepcps: out of memory\n", stderr); exit(3); }
    ACAP = cap;
}

static V copy_obj(V v, uint64_t **to) {
    if (!IS_PTR(v) || IS_STATIC(v)) return v;
    uint64_t *o = OBJ(v);
    if ((o[0] & 0xff) == T_FWD) return (V)o[1];
    size_t n = 1 + NRAW(v) + NVAL(v);
    uint64_t *d = *to;
    memcpy(d, o, n * 8);
    *to += n;
    o[0] = T_FWD;
    o[1] = (uint64_t)(uintptr_t)d;
    return (V)(uintptr_t)d;
}

/* Copies what SELF and A[0..NA) reach into one new chunk (Cheney's scan,
 * without recursion) and frees the old chunks. */
static void gc(void) {
    size_t total = 0;
    for (Chunk *c = chunks; c; c = c->next) total += (size_t)(c->end - c->start);
    Chunk *old = chunks;
    chunks = NULL;
    Chunk *c = malloc(sizeof(Chunk) + total * 8 + 8);
    if (!c) { fputs("deepcps: out of memory\n", stderr); exit(3); }
    c->start = (uint64_t *)(c + 1);
    c->end = c->start + total;
    c->next = NULL;
    uint64_t *to = c->start, *scan = c->start;
    SELF = copy_obj(SELF, &to);
    for (size_t i = 0; i < NA; i++) A[i] = copy_obj(A[i], &to);
    while (scan < to) {
        V v = (V)(uintptr_t)scan;
        size_t nraw = NRAW(v), nval = NVAL(v);
        V *f = (V *)(scan + 1 + nraw);
        for (size_t i = 0; i < nval; i++) f[i] = copy_obj(f[i], &to);
        scan += 1 + nraw + nval;
    }
    while (old) { Chunk *n = old->next; free(old); old = n; }
    chunks = c;
    hp = to;
    hlim = c->end;
    live_after_gc = (size_t)(to - c->start) * 8;
    gc_threshold = live_after_gc < ((size_t)8 << 20) ? ((size_t)8 << 20) : live_after_gc;
    since_gc = 0;
    gc_pending = 0;
}

/* ---- values ---- */
static V box_int(int64_t n) {
    if (n >= -((int64_t)1 << 62) && n < ((int64_t)1 << 62)) return MK_INT(n);
    uint64_t *p = alloc(2);
    p[0] = HDR(T_BIGINT, 1, 0, 0);
    memcpy(&p[1], &n, 8);
    return (V)(uintptr_t)p;
}
static inline int is_int(V v) { return IS_INT(v) || IS_TYPE(v, T_BIGINT); }
static inline int64_t int_of(V v) {
    if (IS_INT(v)) return INT_OF(v);
    int64_t n;
    memcpy(&n, &OBJ(v)[1], 8);
    return n;
}
static V box_float(double d) {
    uint64_t *p = alloc(2);
    p[0] = HDR(T_FLOAT, 1, 0, 0);
    memcpy(&p[1], &d, 8);
    return (V)(uintptr_t)p;
}
static inline double float_of(V v) {
    double d;
    memcpy(&d, &OBJ(v)[1], 8);
    return d;
}
static inline int is_float(V v) { return IS_TYPE(v, T_FLOAT); }
static inline int is_tuple(V v) { return IS_TYPE(v, T_TUPLE); }
static inline int is_fun(V v) { return IS_TYPE(v, T_CLOS); }
static V new_tuple(size_t n) {
    uint64_t *p = alloc(1 + n);
    p[0] = HDR(T_TUPLE, 0, n, 0);
    return (V)(uintptr_t)p;
}
static V new_clos(Code code, int info, size_t n) {
    uint64_t *p = alloc(3 + n);
    p[0] = HDR(T_CLOS, 2, n, 0);
    p[1] = (uint64_t)(uintptr_t)code;
    p[2] = (uint64_t)info;
    return (V)(uintptr_t)p;
}
static inline int is_str(V v) { return IS_TYPE(v, T_STR); }
static inline int is_record(V v) { return IS_TYPE(v, T_RECORD); }
static inline int is_map(V v) { return IS_TYPE(v, T_MAP); }
static inline int is_matrix(V v) { return IS_TYPE(v, T_MATRIX); }
#define STR_LEN(v) ((size_t)OBJ(v)[1])
#define STR_BYTES(v) ((const char *)(OBJ(v) + 2))
/* A string of `n` bytes. */
static V new_str(const char *bytes, size_t n) {
    size_t words = 1 + (n + 8) / 8;
    uint64_t *p = alloc(1 + words);
    p[0] = HDR(T_STR, words, 0, 0);
    p[1] = n;
    memset(p + 2, 0, (words - 1) * 8);
    memcpy(p + 2, bytes, n);
    return (V)(uintptr_t)p;
}
/* The number of characters of a string (UTF-8). */
static size_t str_chars(V v) {
    size_t n = 0;
    for (size_t i = 0; i < STR_LEN(v); i++) n += ((unsigned char)STR_BYTES(v)[i] & 0xC0) != 0x80;
    return n;
}
/* The byte offset of character `k` of a string (its length if past it). */
static size_t str_offset(V v, size_t k) {
    size_t i = 0;
    for (size_t c = 0; i < STR_LEN(v); i++) {
        if (((unsigned char)STR_BYTES(v)[i] & 0xC0) != 0x80) {
            if (c == k) return i;
            c++;
        }
    }
    return i;
}
/* A record of `n` fields (name, value pairs) or a map of `n` entries. */
static V new_pairs(int type, size_t n) {
    uint64_t *p = alloc(1 + 2 * n);
    p[0] = HDR(type, 0, 2 * n, 0);
    return (V)(uintptr_t)p;
}
/* The first function in `v` (itself, or in its tuples, records and maps,
 * left to right, as the evaluator looks), or 0; with `lambdas_only`,
 * built-ins are passed by. */
static V find_fun(V v, int lambdas_only) {
    V *st = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (is_fun(v) && (!lambdas_only || CLO_INFO(v) >= 0)) { free(st); return v; }
        if (is_tuple(v) || is_record(v) || is_map(v)) {
            /* Pushed last first, so that they come off in order. */
            for (size_t i = NVAL(v); i-- > 0;) {
                if (n == cap) {
                    cap = cap ? 2 * cap : 16;
                    st = realloc(st, cap * sizeof(V));
                    if (!st) { fputs("deepcps: out of memory\n", stderr); exit(3); }
                }
                st[n++] = FIELDS(v)[i];
            }
        }
        if (n == 0) { free(st); return 0; }
        v = st[--n];
    }
}
#define M_ROWS(v) ((size_t)OBJ(v)[1])
#define M_COLS(v) ((size_t)OBJ(v)[2])
#define M_DATA(v) ((int64_t *)(OBJ(v) + 3))
static V new_matrix(size_t rows, size_t cols) {
    size_t n = rows * cols;
    uint64_t *p = alloc(3 + n);
    p[0] = HDR(T_MATRIX, 2 + n, 0, 0);
    p[1] = rows;
    p[2] = cols;
    return (V)(uintptr_t)p;
}

static const char *kind_name(V v) {
    if (is_int(v)) return "integer";
    if (is_float(v)) return "float";
    if (v == V_TRUE || v == V_FALSE) return "boolean";
    if (v == V_ALWAYS || v == V_NEVER) return "staging constant";
    if (is_tuple(v)) return "tuple";
    if (is_str(v)) return "string";
    if (is_record(v)) return "record";
    if (is_map(v)) return "map";
    if (is_matrix(v)) return "matrix";
    if (is_fun(v)) return CLO_INFO(v) < 0 ? "built-in" : "lambda";
    return "value";
}
