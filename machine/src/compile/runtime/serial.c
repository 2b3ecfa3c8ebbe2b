/* Values handed to the runtime library. A value that holds a lambda is
 * printed by the machine's own printer (machine/rt), which gets it in this
 * form, read by machine/src/compile/native.rs: a tag byte, then what the
 * tag says, numbers in 8 bytes, little-endian; a closure is the number of
 * its lambda and the values it captured. Part of the runtime of compiled
 * programs (see values.c). */

/* ---- values for the runtime library ---- */
static void put_word(Buf *b, uint64_t w) {
    char x[8];
    for (int i = 0; i < 8; i++) x[i] = (char)(w >> (8 * i));
    put(b, x, 8);
}
static void put_tag(Buf *b, char t) { put(b, &t, 1); }

/* Writes `v` in prefix order, with an explicit stack. */
static void serialize(Buf *b, V v) {
    V *st = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        V *parts = NULL;
        size_t nparts = 0;
        if (is_int(v)) { put_tag(b, 'i'); put_word(b, (uint64_t)int_of(v)); }
        else if (is_float(v)) {
            double d = float_of(v);
            uint64_t w;
            memcpy(&w, &d, sizeof w);
            put_tag(b, 'f');
            put_word(b, w);
        }
        else if (v == V_TRUE) put_tag(b, 'T');
        else if (v == V_FALSE) put_tag(b, 'F');
        else if (v == V_ALWAYS) put_tag(b, 'A');
        else if (v == V_NEVER) put_tag(b, 'N');
        else if (is_str(v)) { put_tag(b, 's'); put_word(b, STR_LEN(v)); put(b, STR_BYTES(v), STR_LEN(v)); }
        else if (is_matrix(v)) {
            size_t r = M_ROWS(v), c = M_COLS(v);
            put_tag(b, 'x');
            put_word(b, r);
            put_word(b, c);
            for (size_t i = 0; i < r * c; i++) put_word(b, (uint64_t)M_DATA(v)[i]);
        }
        else if (is_fun(v) && CLO_INFO(v) == -1) put_tag(b, 'X');
        else if (is_fun(v) && CLO_INFO(v) == -2) put_tag(b, 'I');
        else if (is_fun(v)) {
            put_tag(b, 'c');
            put_word(b, (uint64_t)CLO_INFO(v));
            put_word(b, NVAL(v));
            parts = ENV(v);
            nparts = NVAL(v);
        }
        else if (is_tuple(v) || is_record(v) || is_map(v)) {
            put_tag(b, is_tuple(v) ? 't' : is_record(v) ? 'r' : 'm');
            put_word(b, is_tuple(v) ? NVAL(v) : NVAL(v) / 2);
            parts = FIELDS(v);
            nparts = NVAL(v);
        }
        if (n + nparts > cap) {
            cap = 2 * (n + nparts) + 16;
            st = realloc(st, cap * sizeof(V));
            if (!st) { fputs("deepcps: out of memory\n", stderr); exit(3); }
        }
        /* Pushed last first, so that they come off in order. */
        for (size_t i = nparts; i-- > 0;) st[n++] = parts[i];
        if (n == 0) break;
        v = st[--n];
    }
    free(st);
}

/* The value serialized in `b` (freed) shown by the runtime library: as an
 * exit value, or (`short_form`) as an error message quotes it. NULL if the
 * library cannot. */
static char *ask_library(Buf *b, int short_form) {
    char *t = deepcps_rt_value(IMAGE, IMAGE_LEN, (const unsigned char *)b->s, b->n, short_form);
    free(b->s);
    if (!t) return NULL;
    char *copy = strdup(t);
    deepcps_rt_free(t);
    return copy;
}
/* `v` shown by the runtime library, as ask_library says. */
static char *library_text(V v, int short_form) {
    Buf b = {0};
    serialize(&b, v);
    return ask_library(&b, short_form);
}

/* `short_atom` of the printer: over 60 characters is cut to 57 and `…`.
 * A value holding a lambda is shown by the printer itself. */
static char *short_atom(V v) {
    if (find_fun(v, 1)) {
        char *t = library_text(v, 1);
        if (t) return t;
    }
    return shown(v, 60, "\xe2\x80\xa6");
}
