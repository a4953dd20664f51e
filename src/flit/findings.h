/* Findings of the flit validator (src/flit only): both the per-flit checks
 * (check.c) and the stream rules (stream.c) report through this. */
#ifndef KH_FLIT_FINDINGS_H
#define KH_FLIT_FINDINGS_H

#include "kohaku/flitcheck.h"

typedef struct kh_findings {
    kh_flitcheck_report_fn report; /* may be NULL: only count */
    void *rctx;
    int errors;                    /* violations so far (warnings not counted) */
} kh_findings;

/* Report rule V`rule`, a violation (warn 0) or a warning; the message is
 * "V<rule> " followed by fmt. */
void kh_finding(kh_findings *o, unsigned rule, int warn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
