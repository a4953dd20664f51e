/* Small text helpers of the table engine: messages, names, bit ranges. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_int.h"

void kh_isa_errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (!err || !errlen) return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

int kh_isa_strieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
    return *a == *b;
}

void kh_isa_cname(const char *name, int upper, char *out, size_t outlen)
{
    size_t i = 0;
    for (; name[i] && i + 1 < outlen; i++) {
        char c = name[i] == '-' ? '_' : name[i];
        out[i] = (char)(upper ? toupper((unsigned char)c) : tolower((unsigned char)c));
    }
    out[i] = '\0';
}

/* ---- ranges ---- */

static int parse_part(const char **pp, isa_part *part)
{
    const char *p = *pp;
    char *end;
    if (*p != '[') return -1;
    p++;
    if (!isdigit((unsigned char)*p)) return -1;
    unsigned long hi = strtoul(p, &end, 10), lo;
    p = end;
    if (*p == ':') {
        p++;
        if (!isdigit((unsigned char)*p)) return -1;
        lo = strtoul(p, &end, 10);
        p = end;
    } else {
        lo = hi;
    }
    if (*p != ']' || hi < lo || hi >= 100000) return -1;
    part->hi = (unsigned)hi;
    part->lo = (unsigned)lo;
    *pp = p + 1;
    return 0;
}

int kh_isa_parse_range(const char *s, isa_field *fd)
{
    const char *p = s;
    fd->nparts = 0;
    if (*p == '{') {
        p++;
        for (;;) {
            if (fd->nparts == ISA_MAX_PARTS) return -1;
            if (parse_part(&p, &fd->part[fd->nparts++])) return -1;
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p == '}' && p[1] == '\0') break;
            return -1;
        }
    } else {
        if (parse_part(&p, &fd->part[0]) || *p) return -1;
        fd->nparts = 1;
    }
    fd->width = 0;
    for (unsigned i = 0; i < fd->nparts; i++) fd->width += fd->part[i].hi - fd->part[i].lo + 1;
    return 0;
}

void kh_isa_range_text(const isa_field *fd, char *out, size_t outlen)
{
    size_t k = 0;
    if (fd->nparts > 1 && k + 1 < outlen) out[k++] = '{';
    for (unsigned i = 0; i < fd->nparts; i++) {
        int m;
        if (fd->part[i].hi == fd->part[i].lo)
            m = snprintf(out + k, outlen - k, "%s[%u]", i ? "," : "", fd->part[i].hi);
        else
            m = snprintf(out + k, outlen - k, "%s[%u:%u]", i ? "," : "", fd->part[i].hi,
                         fd->part[i].lo);
        if (m < 0 || (size_t)m >= outlen - k) {
            out[outlen - 1] = '\0';
            return;
        }
        k += (size_t)m;
    }
    if (fd->nparts > 1 && k + 1 < outlen) out[k++] = '}';
    out[k < outlen ? k : outlen - 1] = '\0';
}
