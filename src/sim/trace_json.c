/* The Chrome / Perfetto trace-event JSON sink (trace.h). Events are
 * streamed to the file as they come; each track is named (metadata event)
 * the first time it is used, so the output depends only on the simulation.
 * Every simulation the file holds is a section: two processes, its links and
 * its components (one section unless kh_trace_json_section is called).
 *
 * A simulation stepped by several processes (kh_sim_set_sync, docs/mpi.md):
 * each writes the events of the components it speaks for (kh_sim_reports),
 * the others into an unnamed temporary file with no header; at close the
 * leader appends every other process's events after its own, so each
 * mesh's events are in the one-process order (the file is merged per mesh,
 * not interleaved cycle by cycle). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/gen/flit.h"
#include "kohaku/trace.h"

#define SUB_TID 1000000u /* a component's second track: tid SUB_TID + id */

typedef struct json_trace {
    kh_trace t; /* first member: t.ctx points back here */
    kh_sim *sim;
    FILE *f;
    char *path;
    int pid_links;         /* the current section's processes (1 and 2 first) */
    int next_track;        /* for links made after the section started */
    unsigned char *named;  /* component tracks already named, by id: value 1 its own, 2 its second */
    unsigned nnamed;
    int ranges_named;      /* the section's range track has its name */
    kh_trace_filter keep;  /* --trace-window, --trace-flits */
    int body_only;         /* several processes, not the leader: events only */
} json_trace;

/* Whether this process writes c's events. */
static int speaks(const json_trace *j, const kh_comp *c)
{
    return !c || !j->sim || !kh_sim_sync(j->sim) || kh_sim_reports(j->sim, c);
}

void kh_json_escape(char *out, size_t outlen, const char *s)
{
    size_t o = 0;
    if (!outlen) return;
    for (; *s && o + 7 < outlen; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c < 0x20) {
            o += (size_t)snprintf(out + o, outlen - o, "\\u%04x", c);
        } else {
            out[o++] = (char)c;
        }
    }
    out[o] = 0;
}

static void event_sep(json_trace *j) { fputs(",\n", j->f); }

static void name_track(json_trace *j, int pid, unsigned tid, const char *name)
{
    char esc[160];
    kh_json_escape(esc, sizeof esc, name);
    event_sep(j);
    fprintf(j->f,
            "{\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":\"%s\"}},\n"
            "{\"ph\":\"M\",\"pid\":%d,\"tid\":%u,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%u}}",
            pid, tid, esc, pid, tid, tid);
}

static const char *type_name(unsigned type)
{
    switch (type) { /* flits.md §3 */
    case KH_T_MEM_RD_REQ: return "MEM_RD_REQ";
    case KH_T_MEM_WR_REQ: return "MEM_WR_REQ";
    case KH_T_MEM_RD_RESP: return "MEM_RD_RESP";
    case KH_T_MEM_WR_ACK: return "MEM_WR_ACK";
    case KH_T_MEM_WR_DATA: return "MEM_WR_DATA";
    case KH_T_CU_INST: return "CU_INST";
    case KH_T_CU_SIGNAL: return "CU_SIGNAL";
    case KH_T_CU_CTRL: return "CU_CTRL";
    case KH_T_CU_DATA: return "CU_DATA";
    case KH_T_ERROR: return "ERROR";
    default: return "type?";
    }
}

static void on_link(void *ctx, const kh_link *l, const kh_flit *f, kh_cycle now)
{
    json_trace *j = ctx;
    if (!speaks(j, l->src)) return;
    if (now < j->keep.begin || now >= j->keep.end || !(j->keep.flit_types >> kh_hdr_type(f->w) & 1)) return;
    if (l->trace_track < 0) {
        /* a link made after the file was opened: number it now (the field
         * exists for the sink; the kernel hands it over const) */
        ((kh_link *)l)->trace_track = j->next_track++;
        name_track(j, j->pid_links, (unsigned)l->trace_track + 1, l->name);
    }
    const uint64_t *w = f->w;
    event_sep(j);
    fprintf(j->f,
            "{\"name\":\"%s\",\"cat\":\"flit\",\"ph\":\"X\",\"ts\":%llu,\"dur\":1,\"pid\":%d,"
            "\"tid\":%d,\"args\":{\"dst\":\"(%u,%u)\",\"src\":\"(%u,%u)\",\"type\":%u,\"txn\":%u,"
            "\"last\":%u,\"rsvd\":%u,\"payload\":\"%016llx%016llx%016llx%016llx\"%s}}",
            type_name((unsigned)kh_hdr_type(w)), (unsigned long long)now, j->pid_links,
            l->trace_track + 1, (unsigned)kh_hdr_dst_x(w), (unsigned)kh_hdr_dst_y(w),
            (unsigned)kh_hdr_src_x(w), (unsigned)kh_hdr_src_y(w), (unsigned)kh_hdr_type(w),
            (unsigned)kh_hdr_txn(w), (unsigned)kh_hdr_last(w), (unsigned)kh_hdr_rsvd(w),
            (unsigned long long)w[3], (unsigned long long)w[2], (unsigned long long)w[1],
            (unsigned long long)w[0], l->dst ? "" : ",\"dropped\":1");
}

/* which 1: c's own track, tid id + 1; 2: its second track (sub_span), tid SUB_TID + id */
static void comp_track(json_trace *j, const kh_comp *c, unsigned which, const char *track)
{
    if (c->id >= j->nnamed) {
        unsigned n = c->id + 64;
        unsigned char *v = realloc(j->named, n);
        if (!v) return; /* the event still goes out, on an unnamed track */
        memset(v + j->nnamed, 0, n - j->nnamed);
        j->named = v;
        j->nnamed = n;
    }
    if (j->named[c->id] & which) return;
    j->named[c->id] |= (unsigned char)which;
    if (which == 1) {
        name_track(j, j->pid_links + 1, c->id + 1, c->name);
        return;
    }
    char name[160];
    snprintf(name, sizeof name, "%s %s", c->name, track);
    name_track(j, j->pid_links + 1, SUB_TID + c->id, name);
}

static void put_span(json_trace *j, const kh_comp *c, unsigned tid, const char *track, const char *name,
                     kh_cycle begin, kh_cycle end, const char *args)
{
    char esc[128];
    if (!speaks(j, c)) return;
    /* a span that reaches into the window is cut to it */
    if (end <= j->keep.begin || begin >= j->keep.end || (begin == end && begin < j->keep.begin)) return;
    if (begin < j->keep.begin) begin = j->keep.begin;
    if (end > j->keep.end) end = j->keep.end;
    comp_track(j, c, track ? 2 : 1, track);
    kh_json_escape(esc, sizeof esc, name);
    event_sep(j);
    fprintf(j->f,
            "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%llu,\"dur\":%llu,\"pid\":%d,"
            "\"tid\":%u,\"args\":{%s}}",
            esc, c->ops->kind, (unsigned long long)begin,
            (unsigned long long)(end > begin ? end - begin : 0), j->pid_links + 1, tid, args ? args : "");
}

static void on_span(void *ctx, const kh_comp *c, const char *name, kh_cycle begin, kh_cycle end,
                    const char *args)
{
    put_span(ctx, c, c->id + 1, NULL, name, begin, end, args);
}

static void on_sub_span(void *ctx, const kh_comp *c, const char *track, const char *name, kh_cycle begin,
                        kh_cycle end, const char *args)
{
    put_span(ctx, c, SUB_TID + c->id, track, name, begin, end, args);
}

static void on_instant(void *ctx, const kh_comp *c, const char *name, kh_cycle at, const char *args)
{
    json_trace *j = ctx;
    char esc[128];
    if (!speaks(j, c) || at < j->keep.begin || at >= j->keep.end) return;
    comp_track(j, c, 1, NULL);
    kh_json_escape(esc, sizeof esc, name);
    event_sep(j);
    fprintf(j->f,
            "{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"t\",\"ts\":%llu,\"pid\":%d,"
            "\"tid\":%u,\"args\":{%s}}",
            esc, c->ops->kind, (unsigned long long)at, j->pid_links + 1, c->id + 1, args ? args : "");
}

/* A new pair of processes for sim: "links" and "components", or
 * "LABEL: links" and "LABEL: components" (the first section has pids 1, 2). */
static void begin_section(json_trace *j, kh_sim *sim, const char *label)
{
    char name[160], esc[200];
    int first = j->pid_links < 0;
    j->pid_links = first ? 1 : j->pid_links + 2;
    j->sim = sim;
    j->ranges_named = 0;
    if (j->named) memset(j->named, 0, j->nnamed);
    for (int k = 0; k < 2 && !j->body_only; k++) {
        snprintf(name, sizeof name, "%s%s%s", label ? label : "", label ? ": " : "", k ? "components" : "links");
        kh_json_escape(esc, sizeof esc, name);
        if (!first || k) event_sep(j);
        fprintf(j->f, "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":{\"name\":\"%s\"}}",
                j->pid_links + k, esc);
    }
    /* tracks of the links that exist now, in creation order */
    unsigned n = kh_sim_nlinks(sim);
    for (unsigned i = 0; i < n; i++) {
        kh_link *l = kh_sim_link(sim, i);
        l->trace_track = (int)i;
        if (!j->body_only) name_track(j, j->pid_links, i + 1, l->name); /* the leader names them all */
    }
    j->next_track = (int)n;
}

/* A counter track per component and counter (Perfetto groups counters by
 * process and name, so the name carries the component's). */
static void on_counter(void *ctx, const kh_comp *c, const char *name, kh_cycle at, int64_t value)
{
    json_trace *j = ctx;
    char full[160], esc[200];
    if (!speaks(j, c) || at < j->keep.begin || at >= j->keep.end) return;
    snprintf(full, sizeof full, "%s %s", c->name, name);
    kh_json_escape(esc, sizeof esc, full);
    event_sep(j);
    fprintf(j->f, "{\"name\":\"%s\",\"cat\":\"counter\",\"ph\":\"C\",\"ts\":%llu,\"pid\":%d,\"args\":{\"value\":%lld}}",
            esc, (unsigned long long)at, j->pid_links + 1, (long long)value);
}

void kh_trace_json_set_filter(kh_trace *t, const kh_trace_filter *keep)
{
    json_trace *j = t->ctx;
    j->keep = *keep;
}

/* Several processes: every one learns whether any failed (and the first
 * message), so none goes on alone into a collective run. 1 all succeeded. */
static int one_outcome(kh_sim *sim, int *failed, char *err, size_t errlen)
{
    const kh_sync_ops *sy = kh_sim_sync(sim);
    kh_sync_rec mine = {0, *failed ? strdup(err) : NULL}, *all = NULL;
    int n = sy->gather(kh_sim_sync_ctx(sim), &mine, mine.text ? 1 : 0, &all);
    free(mine.text);
    if (n > 0 && !*failed) snprintf(err, errlen, "%s (on another process)", all[0].text);
    for (int i = 0; i < n; i++) free(all[i].text);
    free(all);
    *failed = n != 0;
    return n == 0;
}

kh_trace *kh_trace_json_open(kh_sim *sim, const char *path, char *err, size_t errlen)
{
    json_trace *j = calloc(1, sizeof *j);
    if (!j || !(j->path = strdup(path))) {
        free(j);
        snprintf(err, errlen, "trace %s: out of memory", path);
        return NULL;
    }
    const kh_sync_ops *sy = sim ? kh_sim_sync(sim) : NULL;
    j->body_only = sy && !sy->leader;
    j->f = j->body_only ? tmpfile() : fopen(path, "w");
    int failed = !j->f;
    if (failed) snprintf(err, errlen, "trace %s: cannot create: %s", path, strerror(errno));
    if (sy && !one_outcome(sim, &failed, err, errlen) && j->f) { /* another process failed: nobody traces */
        fclose(j->f);
        j->f = NULL;
    }
    if (!j->f) {
        free(j->path);
        free(j);
        return NULL;
    }
    setvbuf(j->f, NULL, _IOFBF, 1 << 16);
    j->t.ctx = j;
    j->t.link = on_link;
    j->t.span = on_span;
    j->t.instant = on_instant;
    j->t.counter = on_counter;
    j->t.sub_span = on_sub_span;
    j->keep = (kh_trace_filter){0, KH_NEVER, KH_TRACE_ALL_FLITS};
    if (!j->body_only)
        fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"time_unit\":\"1 us = 1 clock cycle\"},\n"
          "\"traceEvents\":[\n",
          j->f);
    j->pid_links = -1;
    if (sim) begin_section(j, sim, NULL);
    return &j->t;
}

void kh_trace_json_section(kh_trace *t, kh_sim *sim, const char *label)
{
    json_trace *j = t->ctx;
    if (j->sim && kh_sim_trace(j->sim) == t) kh_sim_set_trace(j->sim, NULL);
    j->sim = NULL;
    if (sim) begin_section(j, sim, label);
}

void kh_trace_json_range(kh_trace *t, const char *name, kh_cycle begin, kh_cycle end, const char *args)
{
    json_trace *j = t->ctx;
    char esc[128];
    if (j->pid_links < 0 || j->body_only) return; /* no section yet; the leader writes ranges */
    if (!j->ranges_named) {
        j->ranges_named = 1;
        name_track(j, j->pid_links + 1, 0, "ranges");
    }
    kh_json_escape(esc, sizeof esc, name);
    event_sep(j);
    fprintf(j->f,
            "{\"name\":\"%s\",\"cat\":\"range\",\"ph\":\"X\",\"ts\":%llu,\"dur\":%llu,\"pid\":%d,"
            "\"tid\":0,\"args\":{%s}}",
            esc, (unsigned long long)begin, (unsigned long long)(end > begin ? end - begin : 0),
            j->pid_links + 1, args ? args : "");
}

/* Several processes: every other process's events after the leader's
 * (collective). The non-leaders' temporary files go away with fclose. */
static int merge_bodies(json_trace *j)
{
    const kh_sync_ops *sy = kh_sim_sync(j->sim);
    kh_sync_rec mine = {0, NULL}, *all = NULL;
    unsigned n = 0;
    if (j->body_only) {
        long len;
        if (fflush(j->f) || (len = ftell(j->f)) < 0 || fseek(j->f, 0, SEEK_SET)) return -1;
        if ((mine.text = malloc((size_t)len + 1))) {
            size_t got = fread(mine.text, 1, (size_t)len, j->f);
            mine.text[got] = 0;
            n = 1;
        }
    }
    int nall = sy->gather(kh_sim_sync_ctx(j->sim), &mine, n, &all);
    free(mine.text);
    for (int i = 0; i < nall; i++) {
        if (!j->body_only) fputs(all[i].text, j->f);
        free(all[i].text);
    }
    free(all);
    return nall < 0 ? -1 : 0;
}

int kh_trace_json_close(kh_trace *t, char *err, size_t errlen)
{
    if (!t) return 0;
    json_trace *j = t->ctx;
    int merged = 0;
    if (j->sim && kh_sim_sync(j->sim)) merged = merge_bodies(j);
    if (j->sim && kh_sim_trace(j->sim) == t) kh_sim_set_trace(j->sim, NULL);
    if (!j->body_only) fputs("\n]}\n", j->f);
    int bad = ferror(j->f) || merged;
    if (fclose(j->f)) bad = 1;
    if (bad) snprintf(err, errlen, "trace %s: write error", j->path);
    free(j->named);
    free(j->path);
    free(j);
    return bad ? -1 : 0;
}
