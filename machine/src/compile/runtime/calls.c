/* Calls: `$exit`, `if`, arity and rest parameters, splices of arguments,
 * the check that a head is a function, and the trampoline. Part of the
 * runtime of compiled programs (see values.c). */

/* ---- exit ---- */
static int holds_fun(V v) { return find_fun(v, 1) != 0; }
static void do_exit(int site) {
    if (NA != 1) {
        char msg[128];
        snprintf(msg, sizeof msg, "`$exit` takes exactly 1 argument, given %zu", NA);
        fail_labelled(site, K_ARITY, msg, "this application fails");
    }
    V v = A[0];
    Buf b = {0};
    char *text = holds_fun(v) ? library_text(v, 0) : NULL;
    if (text) {
        puts_(&b, text);
        free(text);
    } else {
        put_value(&b, v, 0);
        puts_(&b, "\n");
    }
    fwrite(b.s, 1, b.n, stdout);
    fflush(stdout);
    exit(0);
}
static void exit_code(void) { do_exit(CALL_SITE); }
static void if_code(void);
RT_SHARED uint64_t EXIT_OBJ[3] RT_INIT({HDR(T_CLOS, 2, 0, 1), 0, (uint64_t)-1});
RT_SHARED uint64_t IF_OBJ[3] RT_INIT({HDR(T_CLOS, 2, 0, 1), 0, (uint64_t)-2});
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
    TRACE_STEP();
    SELF = next;
    NA = 0;
    CALL_SITE = site;
}
static void if_code(void) { do_if(CALL_SITE, CALL_SITE); }


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

/* A tuple with expressions in it, written as the head of an application
 * (tuple head `head` of the program, its variables' values in `env`): the
 * message shows it as the runtime library substitutes the values, or as
 * `written` if the library cannot. */
static void tuple_head_error(int site, int head, V env, const char *written) {
    Buf v = {0};
    put_tag(&v, 'h');
    put_word(&v, (uint64_t)head);
    put_word(&v, NVAL(env));
    for (size_t i = 0; i < NVAL(env); i++) serialize(&v, FIELDS(env)[i]);
    char *t = ask_library(&v, 1);
    Buf msg = {0};
    puts_(&msg, "the head of this application is the tuple ");
    puts_(&msg, t ? t : written);
    puts_(&msg, ", not a function");
    free(t);
    fail_labelled(site, K_NOT_FN, msg.s, "this is a tuple, not a function");
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
    /* A failure comes back here once, to run the program again traced. */
    if (setjmp(run_again)) {
        tracing = 1;
        steps = 0;
        n_traced = 0;
        left = 0;
    }
    grow_args(64);
    NA = 0;
    start();
    for (;;) CLO_CODE(SELF)();
}
