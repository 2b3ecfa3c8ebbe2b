/* The operators of LANGUAGE.md §6.2: checked integer arithmetic, floats,
 * strings, matrix products, comparisons and structural equality. Part of
 * the runtime of compiled programs (see values.c). */

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
    V f = find_fun(a, 0);
    if (f) {
        char *s = show_kind(f);
        FAILF(site, K_TYPE, "cannot compare %s", s);
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
