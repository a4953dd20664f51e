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

void kh_test_run(const char *name, void (*fn)(void))
{
    if (!selected(name)) return;
    kh_test_state_g.current = name;
    kh_test_state_g.failed_checks = 0;
    /* a flit-check sweep (KOHAKU_CHECK, docs/check.md) says which test a finding belongs to */
    const char *sweep = getenv("KOHAKU_CHECK");
    if (sweep && *sweep && strcmp(sweep, "0")) fprintf(stderr, "## %s\n", name);
    fn();
    if (kh_test_state_g.failed_checks) {
        kh_test_state_g.failed++;
    } else {
        kh_test_state_g.passed++;
    }
    fflush(stdout);
}

int kh_test_end(const char *binary_name)
{
    printf("# %s: %d passed, %d failed\n", binary_name, kh_test_state_g.passed,
           kh_test_state_g.failed);
    return kh_test_state_g.failed ? 1 : 0;
}

const char *kh_test_data_dir(void)
{
    const char *d = getenv("KH_DATA");
    return d && *d ? d : "data";
}
