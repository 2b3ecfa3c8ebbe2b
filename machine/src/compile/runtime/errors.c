/* Runtime errors: the first failure runs the program again traced (see
 * trace.c); the report of the failure, with the call sites the traced run
 * found, is rendered by the runtime library as the machine renders it;
 * the wordings shared by several rules. Part of the runtime of compiled
 * programs (see values.c). */

/* ---- errors ---- */
/* Prints the report of the first failure (with its call sites if
 * `traced`) and stops. */
static void report(int traced) {
    fflush(stdout);
    int color = isatty(2) && !getenv("NO_COLOR");
    char *text = deepcps_rt_report(IMAGE, IMAGE_LEN, (uint32_t)failure.site, (uint32_t)failure.kind, failure.lambda,
                                   failure.msg, failure.label, traced_sites, traced ? n_traced : 0, traced, color);
    if (text) {
        fputs(text, stderr);
        deepcps_rt_free(text);
    } else {
        fprintf(stderr, "[%s] Error: %s\n", KIND_NAME[failure.kind], failure.msg);
    }
    exit(1);
}
static void fail_labelled(int site, int kind, const char *msg, const char *label) {
    if (tracing) {
        /* The traced run fails where the first did (or the report has no
         * call sites). */
        if (!left) trace_leave();
        report(site == failure.site && kind == failure.kind);
    }
    failure.site = site;
    failure.kind = kind;
    failure.lambda = failing_lambda;
    failure.msg = strdup(msg);
    failure.label = strdup(label);
    if (!failure.msg || !failure.label) { fputs("deepcps: out of memory\n", stderr); exit(3); }
    longjmp(run_again, 1);
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

/* The lifted lambda `info` was called with the wrong number of arguments
 * A[0..NA): the report points at the call and at the lambda. */
static void call_arity_error(int info) {
    const FunInfo *f = &FUNS[info];
    char label[128];
    if (f->rest < 0) {
        snprintf(label, sizeof label, "this lambda takes %d argument%s", f->fixed, f->fixed == 1 ? "" : "s");
    } else {
        snprintf(label, sizeof label, "this lambda takes at least %d argument%s", f->fixed, f->fixed == 1 ? "" : "s");
    }
    failing_lambda = info;
    arity_error(info, CALL_SITE, label);
}

/* Moves the arguments past the fixed ones before the rest parameter into
 * a tuple at position `rest`: A becomes the lambda's parameters. */
static void collect_rest(int info) {
    const FunInfo *f = &FUNS[info];
    if (NA < (size_t)f->fixed) call_arity_error(info);
    size_t after = (size_t)(f->fixed - f->rest), n = NA - (size_t)f->fixed;
    /* The tuple is allocated before A moves: alloc never collects. */
    V t = new_tuple(n);
    for (size_t i = 0; i < n; i++) FIELDS(t)[i] = A[f->rest + i];
    for (size_t i = 0; i < after; i++) A[f->rest + 1 + i] = A[NA - after + i];
    A[f->rest] = t;
    NA = (size_t)f->fixed + 1;
}
