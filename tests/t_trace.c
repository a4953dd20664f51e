/* The trace-event JSON writer and the --stats writer (trace.h): the files
 * parse as JSON, hold one flit event per link transfer with the header
 * fields as args, component spans (on a component's two tracks), instants
 * and counters, a window that keeps only its cycles, and every link's
 * counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kohaku/json.h"
#include "kohaku/machine.h"
#include "kohaku/mesh.h"
#include "kohaku/trace.h"
#include "kohaku/traffic.h"
#include "support/test.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    *len = fread(buf, 1, (size_t)n, f);
    buf[*len] = 0;
    fclose(f);
    return buf;
}

static kh_json *parse_file(const char *path)
{
    size_t len = 0;
    char *text = slurp(path, &len);
    kh_json_error e;
    kh_json *doc = text ? kh_json_parse(text, len, &e) : NULL;
    if (!doc) kh_test_fail(__FILE__, __LINE__, "%s: %s", path, text ? e.msg : "unreadable");
    free(text);
    return doc;
}

/* A component that marks a span and an instant on its track. */
static void marker_step(kh_comp *c, kh_cycle now)
{
    kh_trace_span(c, "busy", now, now + 6, "\"k\":1");
    kh_trace_instant(c, "tick", now, NULL);
    kh_trace_counter(c, "level", now + 3, 5);
    kh_trace_sub_span(c, "datapath", "work", now + 1, now + 4, NULL);
}
static void marker_destroy(kh_comp *c) { free(c); }
static const kh_comp_ops marker_ops = {.kind = "marker", .step = marker_step, .destroy = marker_destroy};

typedef struct fixture {
    kh_map *map;
    kh_sim *sim;
    kh_mesh *mesh;
    kh_traffic *t;
} fixture;

/* 0 if the fixture is built; a missing map is a failure, not a crash. */
static int setup(fixture *fx)
{
    char err[256];
    char path[512];
    snprintf(path, sizeof path, "%s/maps/mesh_2x2.txt", kh_test_data_dir());
    kh_map_units units;
    kh_machine_map_units(&units);
    fx->map = kh_map_load(path, &units, err, sizeof err);
    if (!fx->map) {
        kh_test_fail(__FILE__, __LINE__, "%s", err);
        return -1;
    }
    fx->sim = kh_sim_new(NULL);
    fx->mesh = kh_mesh_new(fx->sim, fx->map, err, sizeof err);
    kh_traffic_cfg cfg = {.pattern = KH_TRAFFIC_UNIFORM, .rate = 0.2, .seed = 1, .stop = 300};
    fx->t = kh_traffic_new(fx->mesh, fx->map, &cfg, err, sizeof err);
    kh_comp *mk = calloc(1, sizeof *mk);
    kh_sim_add(fx->sim, mk, &marker_ops, "marker");
    kh_comp_wake(mk, 10);
    return 0;
}

static void teardown(fixture *fx)
{
    kh_traffic_free(fx->t);
    kh_mesh_free(fx->mesh);
    kh_sim_destroy(fx->sim);
    kh_map_free(fx->map);
}

/* A temporary file in path (a mkstemp template) and the fixture: 0, or -1
 * with nothing left behind. */
static int setup_file(fixture *fx, char *path)
{
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    if (!setup(fx)) return 0;
    unlink(path);
    return -1;
}

/* Run the fixture to idle, traced into path kept by keep (NULL: all). */
static void traced_run(fixture *fx, const char *path, const kh_trace_filter *keep)
{
    char err[256];
    kh_trace *tr = kh_trace_json_open(fx->sim, path, err, sizeof err);
    CHECK(tr != NULL);
    if (!tr) return;
    if (keep) kh_trace_json_set_filter(tr, keep);
    kh_sim_set_trace(fx->sim, tr);
    CHECK(kh_sim_run_until_idle(fx->sim, 100000));
    CHECK_EQ(kh_trace_json_close(tr, err, sizeof err), 0);
    CHECK(kh_sim_trace(fx->sim) == NULL); /* closing detaches */
}

static void trace_has_one_event_per_link_transfer(void)
{
    char path[] = "/tmp/kh_trace_XXXXXX";
    fixture fx;
    if (setup_file(&fx, path)) return;
    traced_run(&fx, path, NULL);
    uint64_t transfers = 0;
    for (unsigned i = 0; i < kh_sim_nlinks(fx.sim); i++) transfers += kh_sim_link(fx.sim, i)->flits;
    CHECK(transfers > 100);

    kh_json *doc = parse_file(path);
    const kh_json_val *ev = kh_json_get(kh_json_root(doc), "traceEvents");
    CHECK(kh_json_type_of(ev) == KH_JSON_ARRAY);
    uint64_t flits = 0, spans = 0, sub_spans = 0, instants = 0, named = 0, with_args = 0;
    for (size_t i = 0; i < kh_json_len(ev); i++) {
        const kh_json_val *e = kh_json_at(ev, i);
        const char *ph = kh_json_str(kh_json_get(e, "ph"), NULL);
        const char *cat = kh_json_str(kh_json_get(e, "cat"), NULL);
        const char *name = kh_json_str(kh_json_get(e, "name"), NULL);
        if (!ph) continue;
        if (!strcmp(ph, "X") && cat && !strcmp(cat, "flit")) {
            flits++;
            const kh_json_val *a = kh_json_get(e, "args");
            uint64_t type;
            if (kh_json_str(kh_json_get(a, "dst"), NULL) && kh_json_str(kh_json_get(a, "src"), NULL) &&
                !kh_json_u64(kh_json_get(a, "type"), &type) && type == KH_T_CU_DATA &&
                !strcmp(name, "CU_DATA"))
                with_args++;
        } else if (!strcmp(ph, "X") && cat && !strcmp(cat, "marker") && !strcmp(name, "work")) {
            uint64_t dur;
            CHECK(!kh_json_u64(kh_json_get(e, "dur"), &dur) && dur == 3);
            sub_spans++;
        } else if (!strcmp(ph, "X") && cat && !strcmp(cat, "marker")) {
            uint64_t dur, k;
            CHECK(!kh_json_u64(kh_json_get(e, "dur"), &dur) && dur == 6);
            CHECK(!kh_json_u64(kh_json_get(kh_json_get(e, "args"), "k"), &k) && k == 1);
            spans++;
        } else if (!strcmp(ph, "i")) {
            instants++;
        } else if (!strcmp(ph, "M") && name && !strcmp(name, "thread_name")) {
            named++;
        }
    }
    CHECK_EQ(flits, transfers);
    CHECK_EQ(with_args, transfers);
    CHECK_EQ(spans, 1);
    CHECK_EQ(sub_spans, 1);
    CHECK_EQ(instants, 1);
    CHECK(named >= kh_sim_nlinks(fx.sim) + 2); /* the links, the marker's track and its second */
    kh_json_free(doc);
    teardown(&fx);
    remove(path);
}

static void stats_list_every_link_and_component(void)
{
    char path[] = "/tmp/kh_stats_XXXXXX";
    fixture fx;
    if (setup_file(&fx, path)) return;
    char err[256];
    CHECK(kh_sim_run_until_idle(fx.sim, 100000));
    CHECK_EQ(kh_stats_write_json(fx.sim, path, err, sizeof err), 0);
    kh_json *doc = parse_file(path);
    const kh_json_val *links = kh_json_get(kh_json_root(doc), "links");
    CHECK_EQ(kh_json_len(links), kh_sim_nlinks(fx.sim));
    uint64_t sum = 0, drops = 0;
    for (size_t i = 0; i < kh_json_len(links); i++) {
        uint64_t v, d, s;
        const kh_json_val *l = kh_json_at(links, i);
        CHECK(!kh_json_u64(kh_json_get(l, "flits"), &v));
        CHECK(!kh_json_u64(kh_json_get(l, "dropped"), &d));
        CHECK(!kh_json_u64(kh_json_get(l, "stall_cycles"), &s));
        CHECK(kh_json_str(kh_json_get(l, "name"), NULL) != NULL);
        CHECK_EQ(v, kh_sim_link(fx.sim, (unsigned)i)->flits);
        sum += v;
        drops += d;
    }
    CHECK(sum > 100);
    CHECK_EQ(drops, 0); /* traffic goes only to attached endpoints */
    const kh_json_val *comps = kh_json_get(kh_json_root(doc), "components");
    CHECK_EQ(kh_json_len(comps), kh_sim_ncomps(fx.sim));
    unsigned routers = 0;
    for (size_t i = 0; i < kh_json_len(comps); i++) {
        const kh_json_val *c = kh_json_at(comps, i);
        const char *kind = kh_json_str(kh_json_get(c, "kind"), NULL);
        if (kind && !strcmp(kind, "router")) {
            const kh_json_val *hw = kh_json_get(kh_json_get(c, "stats"), "fifo_high_water");
            CHECK_EQ(kh_json_len(hw), 5);
            routers++;
        }
    }
    CHECK_EQ(routers, 4);
    kh_json_free(doc);
    teardown(&fx);
    remove(path);
}

/* --trace-window 12:14 --trace-flits none: the marker's span [10, 16) is
 * cut to [12, 14), its second track's [11, 14) to [12, 14), the instant at
 * 10 is dropped, the counter at 13 kept; no flit at all. */
static void window_cuts_spans_and_keeps_only_its_cycles(void)
{
    char path[] = "/tmp/kh_trace_XXXXXX";
    fixture fx;
    if (setup_file(&fx, path)) return;
    kh_trace_filter keep = {12, 14, 0};
    traced_run(&fx, path, &keep);
    kh_json *doc = parse_file(path);
    const kh_json_val *ev = kh_json_get(kh_json_root(doc), "traceEvents");
    unsigned spans = 0, others = 0, counters = 0;
    for (size_t i = 0; i < kh_json_len(ev); i++) {
        const kh_json_val *e = kh_json_at(ev, i);
        const char *ph = kh_json_str(kh_json_get(e, "ph"), NULL);
        uint64_t ts = 0, dur = 0;
        kh_json_u64(kh_json_get(e, "ts"), &ts);
        kh_json_u64(kh_json_get(e, "dur"), &dur);
        if (!strcmp(ph, "M")) continue;
        if (!strcmp(ph, "X")) {
            CHECK_EQ(ts, 12);
            CHECK_EQ(dur, 2);
            spans++;
        } else if (!strcmp(ph, "C")) { /* the marker's, and the routers' FIFOs in the window */
            CHECK(ts >= 12 && ts < 14);
            if (!strcmp(kh_json_str(kh_json_get(e, "name"), NULL), "marker level")) {
                CHECK_EQ(ts, 13);
                counters++;
            }
        } else {
            others++;
        }
    }
    CHECK_EQ(spans, 2);
    CHECK_EQ(counters, 1);
    CHECK_EQ(others, 0);
    kh_json_free(doc);
    teardown(&fx);
    remove(path);
}

static void json_escape_quotes_and_controls(void)
{
    char out[64];
    kh_json_escape(out, sizeof out, "a\"b\\c\n");
    CHECK_STR(out, "a\\\"b\\\\c\\u000a");
}

/* The fan-out takes a list: every sink sees every event, in list order. */
typedef struct order_sink {
    kh_trace t;
    unsigned id, *log, *n;
} order_sink;

static void order_link(void *ctx, const kh_link *l, const kh_flit *f, kh_cycle now)
{
    order_sink *o = ctx;
    (void)l, (void)f, (void)now;
    o->log[(*o->n)++ % 64] = o->id;
}

static void fanout_feeds_a_list_in_order(void)
{
    unsigned log[64], n = 0;
    order_sink s[3];
    kh_trace *list[3];
    for (unsigned i = 0; i < 3; i++) {
        s[i] = (order_sink){.t = {.ctx = &s[i], .link = order_link}, .id = i, .log = log, .n = &n};
        list[i] = &s[i].t;
    }
    kh_trace *fan = kh_trace_fanout_list(list, 3);
    CHECK(fan != NULL);
    if (!fan) return;
    kh_flit f;
    kh_flit_clear(&f);
    for (int k = 0; k < 2; k++) fan->link(fan->ctx, NULL, &f, (kh_cycle)k);
    CHECK_EQ(n, 6);
    for (unsigned i = 0; i < 6; i++) CHECK_EQ(log[i], i % 3);
    fan->span(fan->ctx, NULL, "x", 0, 1, NULL); /* sinks without span are skipped */
    kh_trace_fanout_free(fan);
}

int main(void)
{
    KH_RUN(fanout_feeds_a_list_in_order);
    KH_RUN(trace_has_one_event_per_link_transfer);
    KH_RUN(stats_list_every_link_and_component);
    KH_RUN(window_cuts_spans_and_keeps_only_its_cycles);
    KH_RUN(json_escape_quotes_and_controls);
    return kh_test_end("t_trace");
}
