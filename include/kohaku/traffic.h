/* Synthetic traffic: test endpoints that generate and sink flits on a mesh
 * (`kohaku bench noc`, the mesh tests).
 *
 * One generator/sink component sits at every occupied endpoint position of
 * the map (or every position). Each offers flits at `rate` per cycle
 * (Bernoulli arrivals from a seeded generator, so runs are repeatable) into
 * a bounded source queue and sends one per cycle at most. Each flit carries
 * its source, destination, per-(source, destination) sequence number and
 * the cycle it was first offered; the sink checks that it arrived at the
 * right endpoint and in order, and measures latency from the first offer on
 * the injection link to acceptance at the sink.
 */
#ifndef KOHAKU_TRAFFIC_H
#define KOHAKU_TRAFFIC_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/mesh.h"

typedef enum kh_traffic_pattern {
    KH_TRAFFIC_UNIFORM,   /* every other endpoint equally likely */
    KH_TRAFFIC_HOTSPOT,   /* 1 in 4 flits to memory port 0, the rest uniform */
    KH_TRAFFIC_TRANSPOSE, /* (x, y) sends to (y, x) when that is another endpoint; else silent */
} kh_traffic_pattern;

typedef struct kh_traffic_cfg {
    kh_traffic_pattern pattern;
    double rate;           /* offered flits per cycle per endpoint; >= 1 saturates */
    uint64_t seed;
    kh_cycle stop;         /* nothing is offered from this cycle on (KH_NEVER: never) */
    uint64_t max_flits;    /* per endpoint; 0 = no limit */
    unsigned sink_period;  /* sinks take a flit only when now % period == 0; 0, 1 = always */
    unsigned src_queue;    /* source queue bound (flits); 0 = 64 */
    int every_position;    /* also at xxx / nul positions */
} kh_traffic_cfg;

typedef struct kh_traffic_stats {
    unsigned endpoints;    /* generators attached */
    uint64_t offered;      /* arrivals (a saturating source: flits it made, one whenever one could go) */
    uint64_t refused;      /* arrivals that found the source queue full (never sent) */
    uint64_t sent;         /* flits transferred into the mesh */
    uint64_t delivered;    /* flits accepted at their destination */
    uint64_t latency_sum;  /* over delivered flits: acceptance - first offer, cycles */
    uint64_t latency_max;
    uint64_t errors;       /* misdelivered, duplicated or out of order */
} kh_traffic_stats;

typedef struct kh_traffic kh_traffic;

/* Attach generators to mesh m (built from map) and start them at the
 * current cycle. The generators are components owned by the simulation;
 * the kh_traffic bookkeeping is freed with kh_traffic_free, after the last
 * kh_sim_run. NULL with a message on a bad configuration. */
kh_traffic *kh_traffic_new(kh_mesh *m, const kh_map *map, const kh_traffic_cfg *cfg, char *err,
                           size_t errlen);
void kh_traffic_free(kh_traffic *t);
void kh_traffic_stats_get(const kh_traffic *t, kh_traffic_stats *s);
/* Every flit sent was delivered exactly once, to its destination, in order
 * per (source, destination). 0 ok; -1 with the first violation in err. */
int kh_traffic_check(const kh_traffic *t, char *err, size_t errlen);
/* Parse "uniform", "hotspot", "transpose"; -1 if unknown. */
int kh_traffic_pattern_parse(const char *s, kh_traffic_pattern *p);

#endif
