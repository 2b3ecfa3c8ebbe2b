/* Tuples, strings, records, maps and matrices (LANGUAGE.md §6.3, §6.4):
 * indexing, slicing and the functions of the expression language. Part of
 * the runtime of compiled programs (see values.c). */

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
