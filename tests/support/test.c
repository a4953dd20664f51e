#include "test.h"

#include <stdarg.h>
#include <stdlib.h>

kh_test_state kh_test_state_g;

void kh_test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    kh_test_state_g.failed_checks++;
    if (kh_test_state_g.failed_checks > 10) return; /* keep logs readable */
    printf("FAIL %s: %s:%d: ", kh_test_state_g.current, file, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

/* KH_TEST=NAME[,NAME...]: run only the tests named (all when unset). */
static int selected(const char *name)
{
    const char *only = getenv("KH_TEST");
    if (!only || !*only) return 1;
    size_t n = strlen(name);
    for (const char *p = only; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        p += len + (comma ? 1 : 0);
    }
    return 0;
}

/* Adds what to the needs list unless it is there. */
static void add_need(const char *what)
{
    char *list = kh_test_state_g.needs;
    size_t n = strlen(what), used = strlen(list);
    for (const char *p = list; *p;) {
        const char *end = strstr(p, ", ");
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, what, n)) return;
        p += len + (end ? 2 : 0);
    }
    snprintf(list + used, sizeof kh_test_state_g.needs - used, "%s%s", used ? ", " : "", what);
}

void kh_test_skip(const char *needs, const char *why)
{
    printf("skip %s: %s\n", kh_test_state_g.current, why);
    kh_test_state_g.skipping = 1;
    add_need(needs);
}

void kh_test_skip_unbuilt(const char *name, const char *needs)
{
    if (!selected(name)) return;
    kh_test_state_g.current = name;
    printf("skip %s: not compiled: needs %s\n", name, needs);
    kh_test_state_g.skipped++;
    add_need(needs);
}

void kh_test_run(const char *name, void (*fn)(void))
{
    if (!selected(name)) return;
    kh_test_state_g.current = name;
    kh_test_state_g.failed_checks = 0;
    kh_test_state_g.skipping = 0;
    /* a flit-check sweep (KOHAKU_CHECK, docs/check.md) says which test a finding belongs to */
    const char *sweep = getenv("KOHAKU_CHECK");
    if (sweep && *sweep && strcmp(sweep, "0")) fprintf(stderr, "## %s\n", name);
    fn();
    if (kh_test_state_g.failed_checks) {
        kh_test_state_g.failed++;
    } else if (kh_test_state_g.skipping) {
        kh_test_state_g.skipped++;
    } else {
        kh_test_state_g.passed++;
    }
    fflush(stdout);
}

int kh_test_end(const char *binary_name)
{
    printf("# %s: %d passed, %d failed", binary_name, kh_test_state_g.passed, kh_test_state_g.failed);
    if (kh_test_state_g.skipped) printf(", %d skipped (needs: %s)", kh_test_state_g.skipped, kh_test_state_g.needs);
    printf("\n");
    return kh_test_state_g.failed ? 1 : 0;
}

const char *kh_test_data_dir(void)
{
    const char *d = getenv("KH_DATA");
    return d && *d ? d : "data";
}
