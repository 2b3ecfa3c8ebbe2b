/* The traced run. When a program fails, it runs again from its start with
 * a record of its steps, as `deepcps run` does (machine/src/graph/calls.rs),
 * so that the report can say where the failing function was called. The
 * machine's steps are β (also of an expression's continuation), `if`,
 * `fix` and `$exit`; the record keeps the site of every β (the body that
 * made it). A run of more than MAX_TRACED_STEPS steps is not traced, as
 * the machine does not trace it: its report has no call sites.
 *
 * Most steps are taken inside a function (a lambda applied in place, an
 * `if` with its branches in place, `fix`), and are not recorded one by
 * one: every body of the generic code has a number, which it stores in PC
 * when it runs, and the generator knows the body before it in the same
 * call and the steps between them. So a call leaves one entry in the
 * record, the number of its last body (with the top bit set), and the
 * runtime library follows the bodies back to the first to get the steps.
 * What crosses functions is recorded as it happens: the β of a call (at a
 * function's entry, or a loop's jump back to its start), `if` applied as
 * a function. Part of the runtime of compiled programs (see values.c). */

/* ---- the traced run ---- */
/* The machine's limit (graph::calls::MAX_TRACED_STEPS). */
#define MAX_TRACED_STEPS 5000000
RT_SHARED int tracing;
RT_SHARED uint64_t steps;
RT_SHARED uint32_t *traced_sites;
RT_SHARED size_t n_traced, cap_traced;
/* Where a failure goes back to, to run again traced. */
RT_SHARED jmp_buf run_again;
/* The first run's failure, reported once the traced run fails the same
 * way (or goes past the limit). */
RT_SHARED struct Failure { int site, kind, lambda; char *msg, *label; } failure;
/* The lifted lambda whose arity the next failure is about, or -1: its
 * source is the failure's place (set just before the failure). */
RT_SHARED int failing_lambda RT_INIT(-1);

/* The body running (its number), in the generic code. */
RT_SHARED uint32_t PC;
/* The steps from the first body of a call to each body (by number). */
RT_SHARED const uint32_t *PATH_STEPS;
/* Whether the call running has left its entry in the record. */
RT_SHARED int left;

static void report(int traced);
static void record(uint32_t entry) {
    if (n_traced == cap_traced) {
        cap_traced = cap_traced ? 2 * cap_traced : 4096;
        traced_sites = realloc(traced_sites, cap_traced * sizeof(uint32_t));
        if (!traced_sites) { fputs("deepcps: out of memory\n", stderr); exit(3); }
    }
    traced_sites[n_traced++] = entry;
}
/* A step that crosses functions: the β made at `site`, or (`site` < 0) an
 * `if` applied as a function. */
static void trace_step(int site) {
    if (++steps > MAX_TRACED_STEPS) report(0);
    if (site < 0) return;
    record((uint32_t)site);
    left = 0;
}
/* The call running leaves its function (or fails) at body PC. */
static void trace_leave(void) {
    steps += PATH_STEPS[PC];
    if (steps > MAX_TRACED_STEPS) report(0);
    record(0x80000000u | PC);
    left = 1;
}
/* Nothing unless the run is traced. */
#define TRACE_STEP() do { if (UNLIKELY(tracing)) trace_step(-1); } while (0)
#define TRACE_CALL(site) do { if (UNLIKELY(tracing)) trace_step(site); } while (0)
#define TRACE_LEAVE() do { if (UNLIKELY(tracing)) trace_leave(); } while (0)
