/* Printing values as the machine prints them: exit values (the printer's
 * form) and values quoted in error messages (the evaluator's form). Part of
 * the runtime of compiled programs (see values.c). */

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
