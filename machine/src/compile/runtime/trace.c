/* The traced run. When a program fails, it runs again from its start with
 * a record of its steps, as `deepcps run` does (machine/src/graph/calls.rs),
 * so that the report can say where the failing function was called. The
 * machine's steps are β (also of an expression's continuation), `if`,
 * `fix` and `$exit`; the record keeps, for every β, the site of the body
 * that made it. A run of more than MAX_TRACED_STEPS steps is not traced,
 * as the machine does not trace it: its report has no call sites. Part of
 * the runtime of compiled programs (see values.c). */

/* ---- the traced run ---- */
/* The machine's limit (graph::calls::MAX_TRACED_STEPS). */
#define MAX_TRACED_STEPS 5000000
static int tracing;
static uint64_t steps;
static uint32_t *traced_sites;
static size_t n_traced, cap_traced;
/* Where a failure goes back to, to run again traced. */
static jmp_buf run_again;
/* The first run's failure, reported once the traced run fails the same
 * way (or goes past the limit). */
static struct { int site, kind, lambda; char *msg, *label; } failure;
/* The lifted lambda whose arity the next failure is about, or -1: its
 * source is the failure's place (set just before the failure). */
static int failing_lambda = -1;

static void report(int traced);
static void trace_step(int site) {
    if (++steps > MAX_TRACED_STEPS) report(0);
    if (site < 0) return;
    if (n_traced == cap_traced) {
        cap_traced = cap_traced ? 2 * cap_traced : 4096;
        traced_sites = realloc(traced_sites, cap_traced * sizeof(uint32_t));
        if (!traced_sites) { fputs("deepcps: out of memory\n", stderr); exit(3); }
    }
    traced_sites[n_traced++] = (uint32_t)site;
}
/* A step that calls nothing (`if`, `fix`), and a β made by the body of
 * `site`: nothing unless the run is traced. */
#define TRACE_STEP() do { if (UNLIKELY(tracing)) trace_step(-1); } while (0)
#define TRACE_CALL(site) do { if (UNLIKELY(tracing)) trace_step(site); } while (0)
