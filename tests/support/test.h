/* A small test harness. One test = one rule of the spec, named after it.
 * A test binary's main() calls KH_RUN for each test and returns kh_test_end().
 * Each binary prints one line per failure and a closing summary line
 * "# NAME: P passed, F failed" that tests/run.sh adds up; a test that cannot
 * run here (kh_test_skip) is counted apart, and the line ends
 * ", S skipped (needs: WHAT, ...)". */
#ifndef KH_TEST_H
#define KH_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct kh_test_state {
    const char *current;     /* name of the running test */
    int failed_checks;       /* checks failed inside the current test */
    int skipping;            /* the current test called kh_test_skip */
    int passed, failed;      /* tests */
    int skipped;             /* tests that could not run here */
    char needs[256];         /* what they need, ", "-separated, each once */
} kh_test_state;

extern kh_test_state kh_test_state_g; /* test-binary state; the library has none */

void kh_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void kh_test_run(const char *name, void (*fn)(void));
int kh_test_end(const char *binary_name);
/* The running test cannot run here: it counts as skipped, not passed (a
 * check failed before still fails it). needs names what it lacks, a Debian
 * package (tools/deps.sh) where one provides it; why is printed. */
void kh_test_skip(const char *needs, const char *why);
/* A test not compiled here (the compiler lacks what it uses) counts as
 * skipped under its name, if KH_TEST selects it. */
void kh_test_skip_unbuilt(const char *name, const char *needs);
/* The project's data folder (maps/, vectors/; data/README.md): $KH_DATA,
 * else data/, relative to the project root the tests run from. */
const char *kh_test_data_dir(void);

/* Runs fn unless KH_TEST names other tests (KH_TEST=a,b: only a and b). */
#define KH_RUN(fn) kh_test_run(#fn, fn)

#define CHECK(cond)                                                        \
    do {                                                                   \
        if (!(cond)) kh_test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond); \
    } while (0)

#define CHECK_EQ(a, b)                                                          \
    do {                                                                        \
        unsigned long long kh_a_ = (unsigned long long)(a);                     \
        unsigned long long kh_b_ = (unsigned long long)(b);                     \
        if (kh_a_ != kh_b_)                                                     \
            kh_test_fail(__FILE__, __LINE__, "%s == %s: 0x%llx != 0x%llx", #a, \
                         #b, kh_a_, kh_b_);                                     \
    } while (0)

#define CHECK_STR(a, b)                                                       \
    do {                                                                      \
        const char *kh_a_ = (a), *kh_b_ = (b);                                \
        if (!kh_a_ || !kh_b_ || strcmp(kh_a_, kh_b_) != 0)                    \
            kh_test_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, \
                         #b, kh_a_ ? kh_a_ : "(null)", kh_b_ ? kh_b_ : "(null)"); \
    } while (0)

#endif
