/* Runtime errors: a site's report, rendered by the machine, printed with
 * the error's kind, message and label filled in; the wordings shared by
 * several rules. Part of the runtime of compiled programs (see values.c). */

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
