/* --trace (Chrome / Perfetto trace events, one track per component and per
 * link, 1 cycle = 1 us on the time axis) and --stats (JSON counters). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/gen/flit.h"
#include "simout.h"

struct kh_simout {
    kh_sim *sim;
    FILE *trace;
    kh_trace sink;
    int first;
};

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void sep(kh_simout *o)
{
    if (!o->first) fputs(",\n", o->trace);
    o->first = 0;
}

static void tr_link(void *ctx, const kh_link *l, const kh_flit *f, kh_cycle now)
{
    kh_simout *o = ctx;
    sep(o);
    fprintf(o->trace, "{\"ph\":\"X\",\"pid\":1,\"tid\":");
    json_str(o->trace, l->name);
    fprintf(o->trace, ",\"ts\":%llu,\"dur\":1,\"name\":\"type %u txn 0x%02x\",\"args\":{\"dst\":\"%u,%u\",\"src\":\"%u,%u\"}}",
            (unsigned long long)now, (unsigned)kh_hdr_type(f->w), (unsigned)kh_hdr_txn(f->w),
            (unsigned)kh_hdr_dst_x(f->w), (unsigned)kh_hdr_dst_y(f->w), (unsigned)kh_hdr_src_x(f->w),
            (unsigned)kh_hdr_src_y(f->w));
}

static void tr_span(void *ctx, const kh_comp *c, const char *name, kh_cycle begin, kh_cycle end, const char *args)
{
    kh_simout *o = ctx;
    sep(o);
    fprintf(o->trace, "{\"ph\":\"X\",\"pid\":0,\"tid\":");
    json_str(o->trace, c->name);
    fprintf(o->trace, ",\"ts\":%llu,\"dur\":%llu,\"name\":", (unsigned long long)begin,
            (unsigned long long)(end > begin ? end - begin : 0));
    json_str(o->trace, name);
    if (args) fprintf(o->trace, ",\"args\":{%s}", args);
    fputc('}', o->trace);
}

static void tr_instant(void *ctx, const kh_comp *c, const char *name, kh_cycle at, const char *args)
{
    kh_simout *o = ctx;
    sep(o);
    fprintf(o->trace, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":0,\"tid\":");
    json_str(o->trace, c->name);
    fprintf(o->trace, ",\"ts\":%llu,\"name\":", (unsigned long long)at);
    json_str(o->trace, name);
    if (args) fprintf(o->trace, ",\"args\":{%s}", args);
    fputc('}', o->trace);
}

kh_simout *kh_simout_open(kh_sim *sim, const char *trace_path, char *err, size_t errlen)
{
    kh_simout *o = calloc(1, sizeof *o);
    if (!o) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    o->sim = sim;
    o->first = 1;
    if (trace_path) {
        o->trace = fopen(trace_path, "w");
        if (!o->trace) {
            snprintf(err, errlen, "cannot write trace '%s': %s", trace_path, strerror(errno));
            free(o);
            return NULL;
        }
        fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", o->trace);
        o->sink = (kh_trace){.ctx = o, .link = tr_link, .span = tr_span, .instant = tr_instant};
        kh_sim_set_trace(sim, &o->sink);
    }
    return o;
}

static int write_stats(kh_sim *sim, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "cannot write stats '%s': %s", path, strerror(errno));
        return -1;
    }
    char *buf = malloc(8192);
    if (!buf) {
        fclose(f);
        snprintf(err, errlen, "out of memory writing stats");
        return -1;
    }
    fprintf(f, "{\n  \"cycles\": %llu,\n  \"components\": {", (unsigned long long)kh_sim_now(sim));
    int first = 1;
    for (unsigned i = 0; i < kh_sim_ncomps(sim); i++) {
        kh_comp *c = kh_sim_comp(sim, i);
        fprintf(f, "%s\n    ", first ? "" : ",");
        first = 0;
        json_str(f, c->name);
        buf[0] = 0;
        if (c->ops->stats_json) c->ops->stats_json(c, buf, 8192);
        fprintf(f, ": {\"kind\": \"%s\"%s%s}", c->ops->kind, buf[0] ? ", " : "", buf);
    }
    fprintf(f, "\n  },\n  \"links\": {");
    first = 1;
    for (unsigned i = 0; i < kh_sim_nlinks(sim); i++) {
        kh_link *l = kh_sim_link(sim, i);
        fprintf(f, "%s\n    ", first ? "" : ",");
        first = 0;
        json_str(f, l->name);
        fprintf(f, ": {\"flits\": %llu, \"stall_cycles\": %llu, \"dropped\": %llu}", (unsigned long long)l->flits,
                (unsigned long long)l->stall_cycles, (unsigned long long)l->dropped);
    }
    fprintf(f, "\n  }\n}\n");
    free(buf);
    if (fclose(f)) {
        snprintf(err, errlen, "cannot write stats '%s': %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int kh_simout_close(kh_simout *o, const char *stats_path, char *err, size_t errlen)
{
    int rc = 0;
    if (o->trace) {
        kh_sim_set_trace(o->sim, NULL);
        fputs("\n]}\n", o->trace);
        if (fclose(o->trace)) {
            snprintf(err, errlen, "cannot finish the trace: %s", strerror(errno));
            rc = -1;
        }
    }
    if (!rc && stats_path) rc = write_stats(o->sim, stats_path, err, errlen);
    free(o);
    return rc;
}
