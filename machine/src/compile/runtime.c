/* The runtime of a program compiled by `deepcps compile`: values, a
 * copying collector, the trampoline, checked arithmetic, the printer of
 * exit values and the wording of runtime errors. The generator writes it
 * at the top of every program it emits; the program's lifted lambdas
 * follow it.
 *
 * Values are 64-bit words. An odd word is an integer of 63 bits; a word
 * whose low three bits are 010 is a constant (booleans, staging
 * constants); any other word points to an object: an integer that needs
 * all 64 bits, a float, a tuple or a closure. Objects start with a header
 * giving their type, how many raw words follow it and how many values.
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

typedef uint64_t V;
typedef void (*Code)(void);

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
static const FunInfo *FUNS;
/* Its error sites: each a report rendered by the machine, with \1 for the
 * error's kind, \2 for its message and \3 for its label. */
static const char *const *SITES;
/* The same reports coloured, printed when standard error is a terminal
 * and NO_COLOR is not set, as `deepcps run` does. */
static const char *const *SITES_COLOR;

/* ---- the heap ---- */
typedef struct Chunk { struct Chunk *next; uint64_t *start, *end; } Chunk;
static Chunk *chunks;
static uint64_t *hp, *hlim;
static size_t since_gc, gc_threshold = (size_t)8 << 20, live_after_gc;
static int gc_pending;

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
static V *A;
static size_t NA, ACAP;
static V SELF;
static int CALL_SITE;

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

/* ---- printing ---- */
typedef struct { char *s; size_t n, cap; } Buf;
static void put(Buf *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->n + n + 1) cap *= 2;
        b->s = realloc(b->s, cap);
        if (!b->s) { fputs("deepcps: out of memory\n", stderr); exit(3); }
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = 0;
}
static void puts_(Buf *b, const char *s) { put(b, s, strlen(s)); }

/* A float as Rust's `{:?}` writes it: the shortest digits that read back
 * to the same number, positional from 1e-4 up to 1e16, else exponential. */
/* Whether the digits `dg` (`nd` of them, the first before the point) times
 * 10^exp read back as `d`; the text is left in `out`. */
static int reads_back(const char *dg, int nd, int exp, double d, char *out, size_t cap) {
    snprintf(out, cap, "%s%c.%.*se%d", d < 0 ? "-" : "", dg[0], nd - 1, dg + 1, exp);
    return strtod(out, NULL) == d;
}
/* Adds `step` (+1 or -1) to the last of `nd` digits, with carry; the
 * exponent moves when the digits overflow (999 + 1) or underflow (100 - 1
 * is left alone: the shorter length covers it). 0 if it cannot. */
static int nudge(char *dg, int nd, int *exp, int step) {
    int k = nd - 1;
    if (step > 0) {
        while (k >= 0 && dg[k] == '9') dg[k--] = '0';
        if (k < 0) { dg[0] = '1'; (*exp)++; return 1; }
        dg[k]++;
        return 1;
    }
    while (k >= 0 && dg[k] == '0') dg[k--] = '9';
    if (k < 0 || (k == 0 && dg[0] == '1' && nd > 1)) return 0;
    dg[k]--;
    return 1;
}
/* A float as Rust's `{:?}` writes it: the shortest digits that read back
 * to the same number (the nearest such); positional from 1e-4 up to 1e16,
 * else exponential. */
static void put_float(Buf *b, double d) {
    char tmp[64];
    if (d == 0) { puts_(b, signbit(d) ? "-0.0" : "0.0"); return; }
    char digits[32];
    int nd = 0, exp = 0, found = 0;
    /* The exact decimal value of d (a double has at most 767 significant
     * digits), to see whether rounding to p digits is a tie: Rust rounds a
     * tie up, C's printf to even. */
    static char exact[800];
    snprintf(exact, sizeof exact, "%.770e", fabs(d));
    char ex[780];
    int nex = 0;
    for (int k = 0; exact[k] && exact[k] != 'e'; k++)
        if (exact[k] != '.') ex[nex++] = exact[k];
    int exp_exact = atoi(strchr(exact, 'e') + 1);
    for (int p = 1; p <= 17 && !found; p++) {
        char r[64];
        snprintf(r, sizeof r, "%.*e", p - 1, fabs(d));
        char dg[32];
        int n = 0, i = 0;
        for (; r[i] && r[i] != 'e'; i++)
            if (r[i] != '.') dg[n++] = r[i];
        dg[n] = 0;
        int e = atoi(r + i + 1);
        int tie = e == exp_exact && p < nex && ex[p] == '5';
        for (int k = p + 1; tie && k < nex; k++) tie = ex[k] == '0';
        if (tie && memcmp(dg, ex, (size_t)p) == 0) {
            /* printf rounded the tie down; Rust takes the upper digits. */
            char up[32];
            int eu = e;
            memcpy(up, dg, (size_t)n + 1);
            if (nudge(up, n, &eu, 1) && reads_back(up, n, eu, d, tmp, sizeof tmp)) {
                memcpy(digits, up, (size_t)n + 1), nd = n, exp = eu, found = 1;
                break;
            }
        }
        if (reads_back(dg, n, e, d, tmp, sizeof tmp)) {
            memcpy(digits, dg, (size_t)n + 1), nd = n, exp = e, found = 1;
            break;
        }
        /* The correctly rounded digits do not read back; a neighbour may
         * (at most one: they lie on either side of the exact value, and the
         * numbers that read back as `d` form an interval around it). */
        char up[32], down[32];
        int eu = e, ed = e;
        memcpy(up, dg, (size_t)n + 1);
        memcpy(down, dg, (size_t)n + 1);
        int ok_up = nudge(up, n, &eu, 1) && reads_back(up, n, eu, d, tmp, sizeof tmp);
        int ok_down = !ok_up && nudge(down, n, &ed, -1) && reads_back(down, n, ed, d, tmp, sizeof tmp);
        if (ok_up) { memcpy(digits, up, (size_t)n + 1), nd = n, exp = eu, found = 1; }
        else if (ok_down) { memcpy(digits, down, (size_t)n + 1), nd = n, exp = ed, found = 1; }
    }
    int neg = d < 0;
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    digits[nd] = 0;
    if (neg) puts_(b, "-");
    double a = fabs(d);
    if (a >= 1e-4 && a < 1e16) {
        if (exp >= 0) {
            for (int k = 0; k <= exp; k++) put(b, k < nd ? &digits[k] : "0", 1);
            puts_(b, ".");
            if (nd > exp + 1) put(b, digits + exp + 1, (size_t)(nd - exp - 1));
            else puts_(b, "0");
        } else {
            puts_(b, "0.");
            for (int k = 0; k < -exp - 1; k++) puts_(b, "0");
            put(b, digits, (size_t)nd);
        }
    } else {
        put(b, digits, 1);
        if (nd > 1) { puts_(b, "."); put(b, digits + 1, (size_t)(nd - 1)); }
        snprintf(tmp, sizeof tmp, "e%d", exp);
        puts_(b, tmp);
    }
}

/* Writes a value as the machine prints it, with an explicit stack (tuples
 * may nest deeply). In an expression (`expr`), functions print as
 * `<lambda>` and `<builtin>`; elsewhere as the printer shows them. */
static void put_value(Buf *b, V v, int expr) {
    enum { F_TUPLE, F_RECORD, F_MAP };
    typedef struct { V t; size_t i; int kind; } Frame;
    Frame *st = NULL;
    size_t sn = 0, scap = 0;
    for (;;) {
        char tmp[64];
        int open = -1;
        if (is_tuple(v)) { puts_(b, "["); open = F_TUPLE; }
        else if (!expr && (is_str(v) || is_record(v) || is_map(v) || is_matrix(v))) {
            /* Outside an expression, these print as expression strings. */
            puts_(b, "\"");
            put_value(b, v, 1);
            puts_(b, "\"");
        }
        else if (is_record(v)) { puts_(b, "{"); open = F_RECORD; }
        else if (is_map(v)) { puts_(b, "map()"); open = F_MAP; }
        else if (is_str(v)) {
            puts_(b, "'");
            for (size_t i = 0; i < STR_LEN(v); i++) {
                char c = STR_BYTES(v)[i];
                if (c == '\'' || c == '\\') puts_(b, "\\");
                put(b, &c, 1);
            }
            puts_(b, "'");
        }
        else if (is_matrix(v)) {
            size_t r = M_ROWS(v), c = M_COLS(v);
            if (r == 0 && c > 0) { snprintf(tmp, sizeof tmp, "matrix(0, %zu, 0)", c); puts_(b, tmp); }
            else {
                puts_(b, "matrix([");
                for (size_t i = 0; i < r; i++) {
                    puts_(b, i ? ", [" : "[");
                    for (size_t j = 0; j < c; j++) {
                        snprintf(tmp, sizeof tmp, j ? ", %lld" : "%lld", (long long)M_DATA(v)[i * c + j]);
                        puts_(b, tmp);
                    }
                    puts_(b, "]");
                }
                puts_(b, "])");
            }
        }
        else if (is_int(v)) { snprintf(tmp, sizeof tmp, "%lld", (long long)int_of(v)); puts_(b, tmp); }
        else if (is_float(v)) put_float(b, float_of(v));
        else if (v == V_TRUE) puts_(b, "true");
        else if (v == V_FALSE) puts_(b, "false");
        else if (v == V_ALWAYS) puts_(b, "always");
        else if (v == V_NEVER) puts_(b, "never");
        else if (is_fun(v) && expr) puts_(b, CLO_INFO(v) < 0 ? "<builtin>" : "<lambda>");
        else if (is_fun(v)) puts_(b, CLO_INFO(v) == -1 ? "$exit" : CLO_INFO(v) == -2 ? "if" : FUNS[CLO_INFO(v)].shown);
        else puts_(b, "?");
        if (open >= 0) {
            if (sn == scap) {
                scap = scap ? scap * 2 : 16;
                st = realloc(st, scap * sizeof(Frame));
                if (!st) { fputs("deepcps: out of memory\n", stderr); exit(3); }
            }
            st[sn].t = v;
            st[sn].i = 0;
            st[sn].kind = open;
            sn++;
        }
        /* Close what is finished, then go to the next value. */
        for (;;) {
            if (sn == 0) { free(st); return; }
            Frame *f = &st[sn - 1];
            size_t n = NVAL(f->t);
            if (f->kind == F_TUPLE && f->i < n) {
                if (f->i > 0) puts_(b, ", ");
                v = FIELDS(f->t)[f->i++];
                break;
            }
            if (f->kind == F_RECORD && f->i < n) {
                if (f->i > 0) puts_(b, ", ");
                V name = FIELDS(f->t)[f->i];
                put(b, STR_BYTES(name), STR_LEN(name));
                puts_(b, ": ");
                v = FIELDS(f->t)[f->i + 1];
                f->i += 2;
                break;
            }
            if (f->kind == F_MAP && f->i < n) {
                if (f->i % 2 == 0) puts_(b, f->i ? ").insert(" : ".insert(");
                else puts_(b, ", ");
                v = FIELDS(f->t)[f->i++];
                break;
            }
            puts_(b, f->kind == F_TUPLE ? "]" : f->kind == F_RECORD ? "}" : n ? ")" : "");
            sn--;
        }
    }
}

/* A value as an error message quotes it: cut to `max` characters, then
 * `cut` is appended. */
static char *shown(V v, size_t max, const char *cut) {
    Buf b = {0};
    put_value(&b, v, max == 80);
    size_t chars = 0, i = 0;
    for (; i < b.n; i++) {
        if (((unsigned char)b.s[i] & 0xC0) != 0x80) {
            if (chars == max) break;
            chars++;
        }
    }
    if (i < b.n) {
        size_t keep = max == 80 ? i : 0;
        if (max != 80) { /* the top-level printer keeps 57 characters */
            size_t c = 0;
            for (keep = 0; keep < b.n; keep++) {
                if (((unsigned char)b.s[keep] & 0xC0) != 0x80) {
                    if (c == 57) break;
                    c++;
                }
            }
        }
        b.n = keep;
        b.s[keep] = 0;
        puts_(&b, cut);
    }
    return b.s;
}
/* `show` of the expression evaluator: 80 characters, then `...`. */
static char *show(V v) { return shown(v, 80, "..."); }
/* `short_atom` of the printer: over 60 characters is cut to 57 and `…`. */
static char *short_atom(V v) { return shown(v, 60, "\xe2\x80\xa6"); }
static char *show_kind(V v) {
    char *s = show(v);
    Buf b = {0};
    puts_(&b, s);
    puts_(&b, " (");
    puts_(&b, kind_name(v));
    puts_(&b, ")");
    free(s);
    return b.s;
}

/* ---- errors ---- */
static void fail_labelled(int site, int kind, const char *msg, const char *label) {
    fflush(stdout);
    const char *text = isatty(2) && !getenv("NO_COLOR") ? SITES_COLOR[site] : SITES[site];
    for (const char *p = text; *p; p++) {
        if (*p == 1) fputs(KIND_NAME[kind], stderr);
        else if (*p == 2) fputs(msg, stderr);
        else if (*p == 3) fputs(label, stderr);
        else fputc(*p, stderr);
    }
    exit(1);
}
static void fail(int site, int kind, const char *msg) { fail_labelled(site, kind, msg, KIND_LABEL[kind]); }
#define FAILF(site, kind, ...)                                 \
    do {                                                       \
        char m_[1024];                                         \
        snprintf(m_, sizeof m_, __VA_ARGS__);                  \
        fail(site, kind, m_);                                  \
    } while (0)

static const char *a_kind(V v) {
    const char *k = kind_name(v);
    return strchr("aeiou", k[0]) ? "an" : "a";
}

/* A value of the wrong kind, as the run words it: the message `before`
 * `the KIND VALUE` `after`, the label `this is a KIND` `label_after`. */
static void wrong_kind(int site, int kind, const char *before, V v, const char *after, const char *label_after) {
    char *s = short_atom(v);
    char msg[1024], label[128];
    snprintf(msg, sizeof msg, "%sthe %s %s%s", before, kind_name(v), s, after);
    snprintf(label, sizeof label, "this is %s %s%s", a_kind(v), kind_name(v), label_after);
    free(s);
    fail_labelled(site, kind, msg, label);
}

/* The head of an application is not a function. */
static void not_a_function(int site, V v) {
    wrong_kind(site, K_NOT_FN, "the head of this application is ", v, ", not a function", ", not a function");
}

/* The arguments A[0..NA) as an error message lists them. */
static char *show_args(void) {
    Buf b = {0};
    puts_(&b, "[");
    for (size_t i = 0; i < NA; i++) {
        if (i) puts_(&b, ", ");
        char *s = short_atom(A[i]);
        puts_(&b, s);
        free(s);
    }
    puts_(&b, "]");
    return b.s;
}

/* A lambda was called with the wrong number of arguments A[0..NA). */
static void arity_error(int info, int site, const char *label) {
    const FunInfo *f = &FUNS[info];
    char *args = show_args();
    char msg[2048];
    int k = f->fixed + (f->rest >= 0);
    if (f->rest < 0) {
        snprintf(msg, sizeof msg, "the lambda %s takes %d argument%s, given %zu: %s", f->params, k, k == 1 ? "" : "s", NA, args);
    } else {
        snprintf(msg, sizeof msg, "the lambda %s takes at least %d argument%s, given %zu: %s", f->params, k - 1,
                 k == 2 ? "" : "s", NA, args);
    }
    free(args);
    fail_labelled(site, K_ARITY, msg, label);
}

/* Moves the arguments past the fixed ones before the rest parameter into
 * a tuple at position `rest`: A becomes the lambda's parameters. */
static void collect_rest(int info) {
    const FunInfo *f = &FUNS[info];
    if (NA < (size_t)f->fixed) arity_error(info, CALL_SITE, "this application");
    size_t after = (size_t)(f->fixed - f->rest), n = NA - (size_t)f->fixed;
    /* The tuple is allocated before A moves: alloc never collects. */
    V t = new_tuple(n);
    for (size_t i = 0; i < n; i++) FIELDS(t)[i] = A[f->rest + i];
    for (size_t i = 0; i < after; i++) A[f->rest + 1 + i] = A[NA - after + i];
    A[f->rest] = t;
    NA = (size_t)f->fixed + 1;
}

/* ---- exit ---- */
static int holds_fun(V v) {
    V *st = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (is_fun(v)) { free(st); return 1; }
        if (is_tuple(v) || is_record(v) || is_map(v)) {
            for (size_t i = 0; i < NVAL(v); i++) {
                if (n == cap) { cap = cap ? 2 * cap : 16; st = realloc(st, cap * sizeof(V)); }
                st[n++] = FIELDS(v)[i];
            }
        }
        if (n == 0) { free(st); return 0; }
        v = st[--n];
    }
}
static void do_exit(int site) {
    if (NA != 1) {
        char msg[128];
        snprintf(msg, sizeof msg, "`$exit` takes exactly 1 argument, given %zu", NA);
        fail_labelled(site, K_ARITY, msg, "this application fails");
    }
    V v = A[0];
    if (holds_fun(v)) {
        fflush(stdout);
        fputs("deepcps: the exit value holds a function, which a compiled program does not print "
              "(`deepcps run` prints it as a term)\n", stderr);
        exit(1);
    }
    Buf b = {0};
    put_value(&b, v, 0);
    puts_(&b, "\n");
    fwrite(b.s, 1, b.n, stdout);
    fflush(stdout);
    exit(0);
}
static void exit_code(void) { do_exit(CALL_SITE); }
static void if_code(void);
static uint64_t EXIT_OBJ[3] = {HDR(T_CLOS, 2, 0, 1), 0, (uint64_t)-1};
static uint64_t IF_OBJ[3] = {HDR(T_CLOS, 2, 0, 1), 0, (uint64_t)-2};
#define V_EXIT ((V)(uintptr_t)EXIT_OBJ)
#define V_IF ((V)(uintptr_t)IF_OBJ)

/* The condition of an `if` is not a boolean (`site` points at it). */
static void if_condition(int site, V c) {
    wrong_kind(site, K_TYPE, "the condition of `if` must be a boolean, got ", c, "", ", not a boolean");
}
/* `if c t f` on A[0..NA): the chosen branch is applied to nothing, in the
 * same body (`site` is that body, `cond` the place of the condition). */
static void do_if(int site, int cond) {
    if (NA != 3) {
        char *args = show_args();
        char msg[2048];
        snprintf(msg, sizeof msg, "`if` takes 3 arguments (condition, then, else), given %zu: %s", NA, args);
        free(args);
        fail_labelled(site, K_ARITY, msg, "this application fails");
    }
    V c = A[0];
    if (c != V_TRUE && c != V_FALSE) if_condition(cond, c);
    V next = c == V_TRUE ? A[1] : A[2];
    if (!is_fun(next)) not_a_function(site, next);
    SELF = next;
    NA = 0;
    CALL_SITE = site;
}
static void if_code(void) { do_if(CALL_SITE, CALL_SITE); }

/* ---- arithmetic (LANGUAGE.md §6.2) ---- */
static int is_num(V v) { return is_int(v) || is_float(v); }
static double as_f64(V v) { return is_int(v) ? (double)int_of(v) : float_of(v); }

static V float_result(int site, double r, V a, const char *op, V b) {
    if (isfinite(r)) return box_float(r);
    char *x = show(a), *y = show(b);
    FAILF(site, K_NOT_FINITE, "%s %s %s is not a finite number", x, op, y);
    return 0;
}

static V type2(int site, const char *op, V a, V b) {
    char *x = show_kind(a), *y = show_kind(b);
    FAILF(site, K_TYPE, "cannot apply `%s` to %s and %s", op, x, y);
    return 0;
}

/* The product of two integer matrices, checked for overflow. */
static V matmul(int site, V a, V b) {
    size_t ar = M_ROWS(a), ac = M_COLS(a), br = M_ROWS(b), bc = M_COLS(b);
    if (ac != br) FAILF(site, K_TYPE, "cannot multiply a %zux%zu matrix by a %zux%zu matrix", ar, ac, br, bc);
    if (bc && ar > ((size_t)1 << 24) / bc)
        FAILF(site, K_OVERFLOW, "the product of a %zux%zu and a %zux%zu matrix is too large", ar, ac, br, bc);
    V r = new_matrix(ar, bc);
    for (size_t i = 0; i < ar; i++)
        for (size_t j = 0; j < bc; j++) {
            int64_t sum = 0, t;
            for (size_t k = 0; k < ac; k++) {
                if (__builtin_mul_overflow(M_DATA(a)[i * ac + k], M_DATA(b)[k * bc + j], &t) ||
                    __builtin_add_overflow(sum, t, &sum))
                    FAILF(site, K_OVERFLOW, "integer overflow in entry (%zu, %zu) of a matrix product", i, j);
            }
            M_DATA(r)[i * bc + j] = sum;
        }
    return r;
}
static V arith_slow(int site, char op, V a, V b) {
    static const char *const SYM[128] = {['+'] = "+", ['-'] = "-", ['*'] = "*", ['/'] = "/", ['%'] = "%"};
    if (is_int(a) && is_int(b)) {
        int64_t x = int_of(a), y = int_of(b), r = 0;
        int ovf = 0;
        if ((op == '/' || op == '%') && y == 0)
            FAILF(site, K_DIV0, "division by zero in %lld %s %lld", (long long)x, SYM[(int)op], (long long)y);
        switch (op) {
        case '+': ovf = __builtin_add_overflow(x, y, &r); break;
        case '-': ovf = __builtin_sub_overflow(x, y, &r); break;
        case '*': ovf = __builtin_mul_overflow(x, y, &r); break;
        case '/': if (x == INT64_MIN && y == -1) ovf = 1; else r = x / y; break;
        default: r = (y == -1) ? 0 : x % y; break;
        }
        if (ovf) FAILF(site, K_OVERFLOW, "integer overflow in %lld %s %lld", (long long)x, SYM[(int)op], (long long)y);
        return box_int(r);
    }
    if (is_num(a) && is_num(b)) {
        double x = as_f64(a), y = as_f64(b), r;
        switch (op) {
        case '+': r = x + y; break;
        case '-': r = x - y; break;
        case '*': r = x * y; break;
        case '/': r = x / y; break;
        default: r = fmod(x, y); break;
        }
        return float_result(site, r, a, SYM[(int)op], b);
    }
    if (op == '+' && is_str(a) && is_str(b)) {
        size_t n = STR_LEN(a), m = STR_LEN(b);
        char *buf = malloc(n + m + 1);
        memcpy(buf, STR_BYTES(a), n);
        memcpy(buf + n, STR_BYTES(b), m);
        V r = new_str(buf, n + m);
        free(buf);
        return r;
    }
    if (op == '*' && is_matrix(a) && is_matrix(b)) return matmul(site, a, b);
    return type2(site, SYM[(int)op], a, b);
}

static inline V rt_add(int site, V a, V b) {
    int64_t r;
    if (LIKELY(a & b & 1) && !__builtin_add_overflow((int64_t)a, (int64_t)(b - 1), &r)) return (V)r;
    return arith_slow(site, '+', a, b);
}
static inline V rt_sub(int site, V a, V b) {
    int64_t r;
    if (LIKELY(a & b & 1) && !__builtin_sub_overflow((int64_t)a, (int64_t)(b - 1), &r)) return (V)r;
    return arith_slow(site, '-', a, b);
}
static inline V rt_mul(int site, V a, V b) {
    int64_t r;
    if (LIKELY(a & b & 1) && !__builtin_mul_overflow(INT_OF(a), (int64_t)(b - 1), &r)) return (V)(r | 1);
    return arith_slow(site, '*', a, b);
}
static V rt_div(int site, V a, V b) { return arith_slow(site, '/', a, b); }
static V rt_rem(int site, V a, V b) { return arith_slow(site, '%', a, b); }

static V rt_neg(int site, V a) {
    if (is_int(a)) {
        int64_t n = int_of(a);
        if (n == INT64_MIN) FAILF(site, K_OVERFLOW, "integer overflow in -(%lld)", (long long)n);
        return box_int(-n);
    }
    if (is_float(a)) return box_float(-float_of(a));
    char *s = show_kind(a);
    FAILF(site, K_TYPE, "unary `-` needs a number, not %s", s);
    return 0;
}
static V rt_not(int site, V a) {
    if (a == V_TRUE || a == V_FALSE) return MK_BOOL(a == V_FALSE);
    char *s = show_kind(a);
    FAILF(site, K_TYPE, "`!` needs a boolean, not %s", s);
    return 0;
}
/* An operand of `&&` or `||`. */
static int want_bool(int site, V a, const char *op) {
    if (a == V_TRUE || a == V_FALSE) return a == V_TRUE;
    char *s = show_kind(a);
    FAILF(site, K_TYPE, "`%s` needs booleans, not %s", op, s);
    return 0;
}

/* Exact comparison of two numbers: -1, 0, 1, or 2 when unordered (NaN
 * cannot occur: floats are finite). */
static int num_cmp(V a, V b) {
    if (is_int(a) && is_int(b)) { int64_t x = int_of(a), y = int_of(b); return (x > y) - (x < y); }
    if (is_float(a) && is_float(b)) { double x = float_of(a), y = float_of(b); return (x > y) - (x < y); }
    int flip = 0;
    if (is_float(a)) { V t = a; a = b; b = t; flip = 1; }
    int64_t i = int_of(a);
    double f = float_of(b), r = (double)i;
    int c;
    if (r < f) c = -1;
    else if (r > f) c = 1;
    else { __int128 x = i, y = (__int128)f; c = (x > y) - (x < y); }
    return flip ? -c : c;
}

static int str_cmp(V a, V b) {
    size_t n = STR_LEN(a) < STR_LEN(b) ? STR_LEN(a) : STR_LEN(b);
    int c = memcmp(STR_BYTES(a), STR_BYTES(b), n);
    if (c) return c < 0 ? -1 : 1;
    return (STR_LEN(a) > STR_LEN(b)) - (STR_LEN(a) < STR_LEN(b));
}
/* Orders two numbers or two strings (`op` names the operation). */
static int order(int site, const char *op, V a, V b) {
    if (is_num(a) && is_num(b)) return num_cmp(a, b);
    if (is_str(a) && is_str(b)) return str_cmp(a, b);
    char *x = show_kind(a), *y = show_kind(b);
    FAILF(site, K_TYPE, "`%s` compares two numbers or two strings, not %s and %s", op, x, y);
    return 0;
}
static V rt_cmp(int site, const char *op, V a, V b) {
    int c = (a & b & 1) ? ((int64_t)a > (int64_t)b) - ((int64_t)a < (int64_t)b) : order(site, op, a, b);
    switch (op[0]) {
    case '<': return MK_BOOL(op[1] ? c <= 0 : c < 0);
    default: return MK_BOOL(op[1] ? c >= 0 : c > 0);
    }
}
static inline V rt_lt(int site, V a, V b) { return (a & b & 1) ? MK_BOOL((int64_t)a < (int64_t)b) : rt_cmp(site, "<", a, b); }
static inline V rt_le(int site, V a, V b) { return (a & b & 1) ? MK_BOOL((int64_t)a <= (int64_t)b) : rt_cmp(site, "<=", a, b); }
static inline V rt_gt(int site, V a, V b) { return (a & b & 1) ? MK_BOOL((int64_t)a > (int64_t)b) : rt_cmp(site, ">", a, b); }
static inline V rt_ge(int site, V a, V b) { return (a & b & 1) ? MK_BOOL((int64_t)a >= (int64_t)b) : rt_cmp(site, ">=", a, b); }

/* Functions cannot be compared. */
static void comparable(int site, V a) {
    V *st = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (is_fun(a)) {
            char *s = show_kind(a);
            FAILF(site, K_TYPE, "cannot compare %s", s);
        }
        if (is_tuple(a) || is_record(a) || is_map(a)) {
            for (size_t i = 0; i < NVAL(a); i++) {
                if (n == cap) { cap = cap ? 2 * cap : 16; st = realloc(st, cap * sizeof(V)); }
                st[n++] = FIELDS(a)[i];
            }
        }
        if (n == 0) { free(st); return; }
        a = st[--n];
    }
}
static int equal(V a, V b);
/* Whether the pairs of `a` (a record or a map) are those of `b`, in any
 * order: each pair of `a` has an equal one in `b` (names and keys are
 * distinct, so the sets are equal when the sizes are). */
static int same_pairs(V a, V b) {
    size_t n = NVAL(a);
    if (n != NVAL(b)) return 0;
    for (size_t i = 0; i < n; i += 2) {
        int found = 0;
        for (size_t j = 0; j < n && !found; j += 2)
            found = equal(FIELDS(a)[i], FIELDS(b)[j]) && equal(FIELDS(a)[i + 1], FIELDS(b)[j + 1]);
        if (!found) return 0;
    }
    return 1;
}
static int equal(V a, V b) {
    V *st = NULL;
    size_t n = 0, cap = 0;
    int eq = 1;
    for (;;) {
        if (is_num(a) && is_num(b)) eq = num_cmp(a, b) == 0;
        else if (is_tuple(a) && is_tuple(b)) {
            eq = NVAL(a) == NVAL(b);
            for (size_t i = 0; eq && i < NVAL(a); i++) {
                if (n + 2 > cap) { cap = cap ? 2 * cap : 16; st = realloc(st, cap * sizeof(V)); }
                st[n++] = FIELDS(a)[i];
                st[n++] = FIELDS(b)[i];
            }
        } else if (is_str(a) && is_str(b)) eq = STR_LEN(a) == STR_LEN(b) && !memcmp(STR_BYTES(a), STR_BYTES(b), STR_LEN(a));
        else if (is_matrix(a) && is_matrix(b))
            eq = M_ROWS(a) == M_ROWS(b) && M_COLS(a) == M_COLS(b) &&
                 !memcmp(M_DATA(a), M_DATA(b), M_ROWS(a) * M_COLS(a) * 8);
        else if ((is_record(a) && is_record(b)) || (is_map(a) && is_map(b))) eq = same_pairs(a, b);
        else eq = a == b && !is_fun(a);
        if (!eq || n == 0) { free(st); return eq; }
        b = st[--n];
        a = st[--n];
    }
}
static V rt_eq(int site, V a, V b, int want) {
    if (a & b & 1) return MK_BOOL((a == b) == want);
    comparable(site, a);
    comparable(site, b);
    return MK_BOOL(equal(a, b) == want);
}

/* ---- tuples ---- */
static int64_t want_int(int site, V a, const char *what) {
    if (is_int(a)) return int_of(a);
    char *s = show_kind(a);
    FAILF(site, K_TYPE, "%s must be an integer, not %s", what, s);
    return 0;
}
static V rt_index(int site, V t, V i) {
    if (is_str(t)) {
        int64_t k = want_int(site, i, "a string index");
        size_t n = str_chars(t);
        if (k < 0 || (uint64_t)k >= n) {
            char *s = show(t);
            FAILF(site, K_INDEX, "index %lld is out of range for the string %s of length %zu", (long long)k, s, n);
        }
        size_t a = str_offset(t, (size_t)k), b = str_offset(t, (size_t)k + 1);
        return new_str(STR_BYTES(t) + a, b - a);
    }
    if (!is_tuple(t)) {
        char *s = show_kind(t);
        FAILF(site, K_TYPE, "cannot index %s: only tuples and strings can be indexed", s);
    }
    int64_t k = want_int(site, i, "a tuple index");
    if (k < 0 || (uint64_t)k >= NVAL(t))
        FAILF(site, K_INDEX, "index %lld is out of range for a tuple of length %llu", (long long)k, (unsigned long long)NVAL(t));
    return FIELDS(t)[k];
}
static V rt_slice(int site, V t, V lo, V hi) {
    if (is_str(t)) {
        int64_t i = want_int(site, lo, "the start of a range"), j = want_int(site, hi, "the end of a range");
        int64_t n = (int64_t)str_chars(t);
        if (i < 0 || j == INT64_MAX || i > j + 1 || j + 1 > n) {
            char *s = show(t);
            FAILF(site, K_INDEX, "range %lld..%lld is out of range for the string %s of length %lld", (long long)i,
                  (long long)j, s, (long long)n);
        }
        size_t a = str_offset(t, (size_t)i), b = str_offset(t, (size_t)(j + 1));
        return new_str(STR_BYTES(t) + a, b - a);
    }
    if (!is_tuple(t)) {
        char *s = show_kind(t);
        FAILF(site, K_TYPE, "cannot slice %s: only tuples and strings can be sliced", s);
    }
    int64_t i = want_int(site, lo, "the start of a range"), j = want_int(site, hi, "the end of a range");
    int64_t n = (int64_t)NVAL(t);
    if (i < 0 || j == INT64_MAX || i > j + 1 || j + 1 > n)
        FAILF(site, K_INDEX, "range %lld..%lld is out of range for a tuple of length %lld", (long long)i, (long long)j, (long long)n);
    V r = new_tuple((size_t)(j + 1 - i));
    for (int64_t k = i; k <= j; k++) FIELDS(r)[k - i] = FIELDS(t)[k];
    return r;
}
static V rt_len(int site, const char *name, V t) {
    if (is_tuple(t)) return MK_INT((int64_t)NVAL(t));
    if (is_str(t)) return MK_INT((int64_t)str_chars(t));
    if (is_map(t)) return MK_INT((int64_t)NVAL(t) / 2);
    char *s = show_kind(t);
    FAILF(site, K_TYPE, "`%s` needs a tuple, a string or a map, not %s", name, s);
    return 0;
}
static V rt_concat(int site, V a, V b) {
    if (is_str(a) && is_str(b)) return arith_slow(site, '+', a, b);
    if (!is_tuple(a) || !is_tuple(b)) {
        char *x = show_kind(a), *y = show_kind(b);
        FAILF(site, K_TYPE, "`concat` needs two tuples or two strings, not %s and %s", x, y);
    }
    size_t n = NVAL(a), m = NVAL(b);
    V r = new_tuple(n + m);
    memcpy(FIELDS(r), FIELDS(a), n * sizeof(V));
    memcpy(FIELDS(r) + n, FIELDS(b), m * sizeof(V));
    return r;
}
static V rt_minmax(int site, const char *name, V a, V b, int is_min) {
    int c = order(site, name, a, b);
    return (is_min ? c > 0 : c < 0) ? b : a;
}
static V rt_abs(int site, V a) {
    if (is_int(a)) {
        int64_t n = int_of(a);
        if (n == INT64_MIN) FAILF(site, K_OVERFLOW, "integer overflow in abs(%lld)", (long long)n);
        return box_int(n < 0 ? -n : n);
    }
    if (is_float(a)) return box_float(fabs(float_of(a)));
    char *s = show_kind(a);
    FAILF(site, K_TYPE, "`abs` needs a number, not %s", s);
    return 0;
}
static V rt_to_int(int site, V a) {
    if (is_int(a)) return a;
    if (is_float(a)) {
        double t = trunc(float_of(a));
        if (t >= -9223372036854775808.0 && t < 9223372036854775808.0) return box_int((int64_t)t);
        char *s = show(a);
        FAILF(site, K_OVERFLOW, "int(%s) does not fit in a 64-bit integer", s);
    }
    char *s = show_kind(a);
    FAILF(site, K_TYPE, "`int` needs a number, not %s", s);
    return 0;
}
static V rt_to_float(int site, V a) {
    if (is_int(a)) return box_float((double)int_of(a));
    if (is_float(a)) return a;
    char *s = show_kind(a);
    FAILF(site, K_TYPE, "`float` needs a number, not %s", s);
    return 0;
}

/* ---- records, maps, matrices (LANGUAGE.md §6.3, §6.4) ---- */

/* A record from `n` names and values (names are static strings). */
static V rt_record(int site, const V *names, const V *vals, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (equal(names[i], names[j]))
                FAILF(site, K_TYPE, "duplicate field `%.*s` in record", (int)STR_LEN(names[i]), STR_BYTES(names[i]));
    V r = new_pairs(T_RECORD, n);
    for (size_t i = 0; i < n; i++) {
        FIELDS(r)[2 * i] = names[i];
        FIELDS(r)[2 * i + 1] = vals[i];
    }
    return r;
}
/* Field `f` (a static string) of a record. */
static V rt_field(int site, V r, V f) {
    if (!is_record(r)) {
        char *s = show_kind(r);
        FAILF(site, K_TYPE, "cannot read field `%.*s` of %s: it is not a record", (int)STR_LEN(f), STR_BYTES(f), s);
    }
    for (size_t i = 0; i < NVAL(r); i += 2)
        if (equal(FIELDS(r)[i], f)) return FIELDS(r)[i + 1];
    char *s = show(r);
    FAILF(site, K_MISSING_KEY, "the record %s has no field `%.*s`", s, (int)STR_LEN(f), STR_BYTES(f));
    return 0;
}
static V rt_map_new(void) { return new_pairs(T_MAP, 0); }
static V rt_insert(int site, V t, V k, V v) {
    if (is_map(t)) {
        comparable(site, k);
        size_t n = NVAL(t) / 2, at = n;
        for (size_t i = 0; i < n; i++)
            if (equal(FIELDS(t)[2 * i], k)) at = i;
        V r = new_pairs(T_MAP, at == n ? n + 1 : n);
        memcpy(FIELDS(r), FIELDS(t), NVAL(t) * sizeof(V));
        FIELDS(r)[2 * at] = k;
        FIELDS(r)[2 * at + 1] = v;
        return r;
    }
    if (is_tuple(t)) {
        int64_t i = want_int(site, k, "the position of `insert`");
        size_t n = NVAL(t);
        if (i < 0 || (uint64_t)i > n)
            FAILF(site, K_INDEX, "insert position %lld is out of range for a tuple of length %zu", (long long)i, n);
        V r = new_tuple(n + 1);
        memcpy(FIELDS(r), FIELDS(t), (size_t)i * sizeof(V));
        FIELDS(r)[i] = v;
        memcpy(FIELDS(r) + i + 1, FIELDS(t) + i, (n - (size_t)i) * sizeof(V));
        return r;
    }
    char *s = show_kind(t);
    FAILF(site, K_TYPE, "`insert` needs a tuple or a map, not %s", s);
    return 0;
}
/* `delete(t, lo..hi)` (`delete(t, i)` is `delete(t, i..i)`). */
static V rt_delete(int site, V t, V lo, V hi, int range) {
    if (!is_tuple(t)) {
        char *s = show_kind(t);
        FAILF(site, K_TYPE, "the first argument of `delete` must be a tuple, not %s", s);
    }
    int64_t i, j;
    if (range) {
        i = want_int(site, lo, "the start of a range");
        j = want_int(site, hi, "the end of a range");
    } else i = j = want_int(site, lo, "the position of `delete`");
    int64_t n = (int64_t)NVAL(t);
    if (i < 0 || j == INT64_MAX || i > j + 1 || j + 1 > n)
        FAILF(site, K_INDEX, "range %lld..%lld is out of range for a tuple of length %lld", (long long)i, (long long)j, (long long)n);
    V r = new_tuple((size_t)(n - (j + 1 - i)));
    memcpy(FIELDS(r), FIELDS(t), (size_t)i * sizeof(V));
    memcpy(FIELDS(r) + i, FIELDS(t) + j + 1, (size_t)(n - j - 1) * sizeof(V));
    return r;
}
static V rt_lookup(int site, V m, V k) {
    if (!is_map(m)) {
        char *s = show_kind(m);
        FAILF(site, K_TYPE, "`lookup` needs a map, not %s", s);
    }
    comparable(site, k);
    for (size_t i = 0; i < NVAL(m); i += 2)
        if (equal(FIELDS(m)[i], k)) return FIELDS(m)[i + 1];
    char *s = show(k);
    FAILF(site, K_MISSING_KEY, "the key %s is not in the map", s);
    return 0;
}
static V rt_pluck(int site, V t, V f) {
    if (!is_tuple(t)) {
        char *s = show_kind(t);
        FAILF(site, K_TYPE, "the first argument of `pluck` must be a tuple, not %s", s);
    }
    if (!is_str(f)) {
        char *s = show_kind(f);
        FAILF(site, K_TYPE, "the field name of `pluck` must be a string, not %s", s);
    }
    V r = new_tuple(NVAL(t));
    for (size_t i = 0; i < NVAL(t); i++) FIELDS(r)[i] = rt_field(site, FIELDS(t)[i], f);
    return r;
}
/* `matrix(rows, cols, seed)`: entries 0..9 of the linear congruential
 * generator of LANGUAGE.md §6.4. */
static V rt_matrix_random(int site, V vr, V vc, V vs) {
    int64_t rows = want_int(site, vr, "the number of rows"), cols = want_int(site, vc, "the number of columns");
    int64_t seed = want_int(site, vs, "the seed");
    if (rows < 0 || cols < 0)
        FAILF(site, K_TYPE, "`matrix` needs non-negative rows and columns, not %lld, %lld", (long long)rows, (long long)cols);
    if (cols && (uint64_t)rows > ((uint64_t)1 << 24) / (uint64_t)cols)
        FAILF(site, K_OVERFLOW, "a %lldx%lld matrix is too large", (long long)rows, (long long)cols);
    const uint64_t mod = (uint64_t)1 << 31;
    uint64_t state = (uint64_t)(((seed % (int64_t)mod) + (int64_t)mod) % (int64_t)mod);
    V m = new_matrix((size_t)rows, (size_t)cols);
    for (size_t i = 0; i < (size_t)(rows * cols); i++) {
        state = (1103515245u * state + 12345u) % mod;
        M_DATA(m)[i] = (int64_t)((state >> 16) % 10);
    }
    return m;
}
/* The integers of a tuple (`what` names it in errors). */
static int64_t *int_elements(int site, V t, const char *what, size_t *n) {
    if (!is_tuple(t)) {
        char *s = show_kind(t);
        FAILF(site, K_TYPE, "%s must be a tuple, not %s", what, s);
    }
    *n = NVAL(t);
    int64_t *xs = malloc((*n + 1) * sizeof(int64_t));
    char each[160];
    snprintf(each, sizeof each, "each element of %s", what);
    for (size_t i = 0; i < *n; i++) xs[i] = want_int(site, FIELDS(t)[i], each);
    return xs;
}
/* `matrix([[..], ..])`. */
static V rt_matrix_rows(int site, V t) {
    if (!is_tuple(t)) {
        char *s = show_kind(t);
        FAILF(site, K_TYPE, "the argument of `matrix` must be a tuple, not %s", s);
    }
    size_t rows = NVAL(t), cols = 0;
    for (size_t i = 0; i < rows; i++) {
        size_t n;
        free(int_elements(site, FIELDS(t)[i], "a row of a matrix", &n));
        if (i == 0) cols = n;
        else if (n != cols) FAILF(site, K_TYPE, "ragged matrix rows: row %zu has %zu entries, row 0 has %zu", i, n, cols);
        if (cols && rows > ((size_t)1 << 24) / cols) FAILF(site, K_OVERFLOW, "the matrix is too large");
    }
    V m = new_matrix(rows, cols);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) M_DATA(m)[i * cols + j] = int_of(FIELDS(FIELDS(t)[i])[j]);
    return m;
}
static V rt_dims(int site, V m) {
    if (!is_matrix(m)) {
        char *s = show_kind(m);
        FAILF(site, K_TYPE, "`dims` needs a matrix, not %s", s);
    }
    V r = new_tuple(2);
    FIELDS(r)[0] = MK_INT((int64_t)M_ROWS(m));
    FIELDS(r)[1] = MK_INT((int64_t)M_COLS(m));
    return r;
}
/* `matrix_chain_order(dims)`: the products of the cheapest
 * parenthesization, each the index of its left operand in the current
 * list of matrices (the textbook dynamic programme, ties to the smallest
 * split). */
static V rt_chain_order(int site, V t) {
    size_t nd;
    int64_t *d = int_elements(site, t, "the argument of `matrix_chain_order`", &nd);
    for (size_t i = 0; i < nd; i++)
        if (d[i] < 0) FAILF(site, K_TYPE, "matrix dimensions must be non-negative, not %lld", (long long)d[i]);
    if (nd < 2) {
        char *s = show(t);
        FAILF(site, K_TYPE, "`matrix_chain_order` needs at least two dimensions (one matrix), not %s", s);
    }
    if (nd > 1001) FAILF(site, K_OVERFLOW, "`matrix_chain_order` handles at most 1000 matrices, not %zu", nd - 1);
    size_t n = nd - 1;
    unsigned __int128 *cost = calloc(n * n, sizeof(unsigned __int128));
    size_t *split = calloc(n * n, sizeof(size_t));
    const unsigned __int128 top = ~(unsigned __int128)0;
    for (size_t len = 2; len <= n; len++)
        for (size_t i = 0; i + len <= n; i++) {
            size_t j = i + len - 1, bk = 0;
            unsigned __int128 best = 0;
            int have = 0;
            for (size_t k = i; k < j; k++) {
                unsigned __int128 a = (unsigned __int128)d[i], b = (unsigned __int128)d[k + 1], c = (unsigned __int128)d[j + 1];
                int ovf = (b && a > top / b);
                unsigned __int128 m = ovf ? 0 : a * b;
                ovf = ovf || (c && m > top / c);
                m = ovf ? 0 : m * c;
                unsigned __int128 x = cost[i * n + k], y = cost[(k + 1) * n + j];
                ovf = ovf || x > top - y || x + y > top - m;
                if (ovf) FAILF(site, K_OVERFLOW, "the cost of the matrix chain overflows");
                unsigned __int128 cc = x + y + m;
                if (!have || cc < best) { best = cc; bk = k; have = 1; }
            }
            cost[i * n + j] = best;
            split[i * n + j] = bk;
        }
    /* The post-order walk of the split tree over segments of the chain. */
    size_t *first = malloc(n * sizeof(size_t)), *last = malloc(n * sizeof(size_t)), segs = n;
    for (size_t i = 0; i < n; i++) first[i] = last[i] = i;
    typedef struct { size_t i, j; int expanded; } Item;
    Item *stack = malloc((2 * n + 2) * sizeof(Item));
    size_t sp = 0, out = 0;
    V r = new_tuple(n - 1);
    stack[sp++] = (Item){0, n - 1, 0};
    while (sp) {
        Item it = stack[--sp];
        if (it.i == it.j) continue;
        size_t k = split[it.i * n + it.j];
        if (it.expanded) {
            size_t idx = 0;
            while (idx < segs && first[idx] != it.i) idx++;
            FIELDS(r)[out++] = MK_INT((int64_t)idx);
            last[idx] = last[idx + 1];
            memmove(first + idx + 1, first + idx + 2, (segs - idx - 2) * sizeof(size_t));
            memmove(last + idx + 1, last + idx + 2, (segs - idx - 2) * sizeof(size_t));
            segs--;
        } else {
            stack[sp++] = (Item){it.i, it.j, 1};
            stack[sp++] = (Item){k + 1, it.j, 0};
            stack[sp++] = (Item){it.i, k, 0};
        }
    }
    free(cost); free(split); free(first); free(last); free(stack); free(d);
    return r;
}

/* A splice `!t` of an application's argument that is no tuple. */
static void want_splice(int site, V t) {
    if (is_tuple(t)) return;
    char *s = short_atom(t);
    char msg[1024];
    snprintf(msg, sizeof msg, "a splice `!t` needs a tuple, got the %s %s", kind_name(t), s);
    fail_labelled(site, K_TYPE, msg, "this application fails");
}
/* Pushes the elements of a spliced tuple onto the arguments. */
static void splice_args(V t) {
    size_t n = NVAL(t);
    grow_args(NA + n);
    memcpy(A + NA, FIELDS(t), n * sizeof(V));
    NA += n;
}
/* Builds a tuple of `n` parts, where the parts marked in `spliced` are
 * tuples whose elements are spliced. */
static V splice_tuple(int site, const V *parts, const char *spliced, size_t n) {
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (!spliced[i]) { total++; continue; }
        if (!is_tuple(parts[i])) {
            char *s = show_kind(parts[i]);
            FAILF(site, K_TYPE, "cannot splice %s into a tuple", s);
        }
        total += NVAL(parts[i]);
    }
    V r = new_tuple(total);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!spliced[i]) { FIELDS(r)[k++] = parts[i]; continue; }
        memcpy(FIELDS(r) + k, FIELDS(parts[i]), NVAL(parts[i]) * sizeof(V));
        k += NVAL(parts[i]);
    }
    return r;
}

/* Checks that the head of a call is a function (the call's site words
 * the error). */
static inline void want_fun(int site, V f) {
    if (UNLIKELY(!is_fun(f))) not_a_function(site, f);
}

/* Runs a program from its start function: the program sets its tables,
 * runs its top-level body, and every call after that goes through here. */
static int run_program(void (*start)(void)) {
    EXIT_OBJ[1] = (uint64_t)(uintptr_t)exit_code;
    IF_OBJ[1] = (uint64_t)(uintptr_t)if_code;
    grow_args(64);
    start();
    for (;;) CLO_CODE(SELF)();
}
