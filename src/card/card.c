/* The host window (control.md §9): address decode, word and block accesses,
 * the host-link cost, and the control-program engine's master path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/bits.h"
#include "kohaku/card.h"
#include "kohaku/ckpt.h"
#include "kohaku/gen/addr.h"
#include "card/card_int.h"

typedef struct card_mesh {
    kh_orch *orch;
    kh_card_mem mem;
    int present;
    /* Host beats to this window are placed at or after this cycle: a write
     * that would land in the end-of-dispatch window waits for the push, and
     * every later beat keeps its order behind it (docs/host-link.md). */
    kh_cycle hold_until;
    uint64_t held;      /* beats held so (kh_card_held_beats) */
} card_mesh;

struct kh_card {
    kh_sim *sim;
    kh_engine *engine;
    card_mesh mesh[KH_HOST_MESHES];
    /* The engine's transaction in flight: host beats to the same node
     * control window are placed after it (control.md §9.3, Open point 15). */
    kh_orch *eng_target;
    kh_cycle eng_until;
    /* Read-your-writes: a control-window read waits until the host's own
     * earlier write beats have acted (their boundary + 2). */
    kh_cycle wrote_until;
    /* Polling with a zero-cost host: the addresses read at cycle seen_at
     * since the last write. Reading one of them again means the host is
     * waiting for a change, so the clock first runs to the next event. */
    kh_cycle seen_at;
    unsigned nseen;
    uint64_t seen[8];
    /* The last read sampled a machine with nothing pending: its value
     * cannot change without another host access (kh_card_read_settled). */
    int settled;
    /* Several processes (kh_card_set_dist): the engine's read sampled at
     * pre_at, shared by its owner before that cycle ran. */
    kh_card_dist dist;
    kh_cycle pre_at;
    uint32_t pre_addr;
    uint64_t pre_value;
    /* rides up to this number came before a host access that may have
     * changed what they carry (dist.ride) */
    uint64_t ride_void;
};

/* What an address decodes to. */
typedef enum card_win { WIN_NONE, WIN_CMD, WIN_CTRL, WIN_MEM } card_win;

uint64_t kh_host_ctrl(unsigned mesh, uint32_t off)
{
    return KH_HOST_CTRL_BASE + mesh * KH_HOST_CTRL_STRIDE + (off & 0xFFFF);
}

/* The canonical inside addresses of memory.md §1.2: the mesh id is written
 * twice, once as the window and once in bits [37:36]; bit 39 selects the
 * staging aperture. */
static uint64_t inside(unsigned mesh, int staging, uint64_t offset)
{
    uint64_t a = 0; /* isa/addr.isa */
    kh_addr_set_mesh(&a, mesh);
    kh_addr_set_aperture(&a, staging ? 1 : 0);
    return ((uint64_t)(mesh + 1) << KH_HOST_MEM_SHIFT) + a + offset;
}

uint64_t kh_host_dram(unsigned mesh, uint64_t offset) { return inside(mesh, 0, offset); }

uint64_t kh_host_staging(unsigned mesh, uint64_t offset) { return inside(mesh, 1, offset); }

static card_win decode(const kh_card *c, uint64_t addr, unsigned *mesh, uint64_t *off)
{
    if (addr < KH_HOST_WINDOW_SIZE) {
        *off = addr;
        return WIN_CMD;
    }
    if (addr >= KH_HOST_CTRL_ALIAS && addr < KH_HOST_CTRL_ALIAS + KH_HOST_WINDOW_SIZE && c->mesh[0].present) {
        *mesh = 0;
        *off = addr - KH_HOST_CTRL_ALIAS;
        return WIN_CTRL;
    }
    if (addr >= KH_HOST_CTRL_BASE && addr < KH_HOST_CTRL_BASE + KH_HOST_MESHES * KH_HOST_CTRL_STRIDE) {
        unsigned n = (unsigned)((addr - KH_HOST_CTRL_BASE) / KH_HOST_CTRL_STRIDE);
        if (!c->mesh[n].present) return WIN_NONE;
        *mesh = n;
        *off = (addr - KH_HOST_CTRL_BASE) % KH_HOST_CTRL_STRIDE;
        return WIN_CTRL;
    }
    uint64_t w = addr >> KH_HOST_MEM_SHIFT;
    if (w >= 1 && w <= KH_HOST_MESHES && c->mesh[w - 1].present && c->mesh[w - 1].mem.read) {
        *mesh = (unsigned)(w - 1);
        *off = addr & (((uint64_t)1 << KH_HOST_MEM_SHIFT) - 1);
        return WIN_MEM;
    }
    return WIN_NONE;
}

static int unmapped(const kh_card *c, uint64_t addr, char *err, size_t errlen)
{
    unsigned n = 0;
    for (unsigned i = 0; i < KH_HOST_MESHES; i++) n += c->mesh[i].present;
    snprintf(err, errlen,
             "host address 0x%llx is unmapped: this machine decodes the command window 0x0-0xffff, "
             "node control windows 0x%llx + N*0x10000 and memory windows (N+1) << 40 for meshes 0..%u, "
             "and mesh 0's alias at 0x10000000 (control.md §9.2)",
             (unsigned long long)addr, (unsigned long long)KH_HOST_CTRL_BASE, n ? n - 1 : 0);
    return -1;
}

static int check_aligned(uint64_t addr, char *err, size_t errlen)
{
    if (addr & 7) {
        snprintf(err, errlen, "host address 0x%llx is not 8-byte aligned: the host API moves 64-bit words "
                 "(control.md §9.3)", (unsigned long long)addr);
        return -1;
    }
    return 0;
}

/* The host-link cost of one transaction (docs/host-link.md, parameters.md
 * row 118): a single-beat access, or a burst of beats in a memory window. */
static uint64_t access_cycles(const kh_card *c, int is_read, size_t beats)
{
    const kh_params *p = kh_sim_params(c->sim);
    uint64_t k = (is_read ? p->host_read_cycles : p->host_write_cycles) + p->host_access_cycles;
    if (beats > 1) k += (beats - 1) * p->host_beat_cycles;
    return k;
}

static void advance(kh_card *c, int is_read, size_t beats)
{
    uint64_t k = access_cycles(c, is_read, beats);
    if (k) kh_sim_run(c->sim, k);
}

/* A memory-window burst's link time: over a machine an agreement found
 * idle on every process (quiet), without another agreement. */
static void run_burst(kh_card *c, int is_read, size_t beats, int quiet)
{
    uint64_t k = access_cycles(c, is_read, beats);
    if (quiet && k) kh_sim_run_idle(c->sim, k);
    else if (k) kh_sim_run(c->sim, k);
}

static int zero_time(const kh_card *c)
{
    const kh_params *p = kh_sim_params(c->sim);
    return p->host_read_cycles == 0 && p->host_access_cycles == 0;
}

static kh_cycle host_beat(const kh_card *c, kh_orch *target)
{
    kh_cycle now = kh_sim_now(c->sim);
    if (target == c->eng_target && c->eng_until > now) return c->eng_until;
    return now;
}

/* No legal host sequence may misdirect or duplicate a dispatch: a write of
 * PROG_DST (the final flit samples it at its push) or TX_KICK (its push
 * collides with the final one, control.md Open point 5) whose beat would
 * land in the end-of-dispatch window is held until the push. The RTL does
 * not hold it; host_rtl_window = 1 models that. */
static kh_cycle guard_window(kh_card *c, card_mesh *cm, uint32_t off, kh_cycle beat)
{
    if (beat < cm->hold_until) beat = cm->hold_until;
    if (off != KH_ORCH_PROG_DST && off != KH_ORCH_TX_KICK) return beat;
    kh_cycle push = kh_orch_final_push_at(cm->orch);
    if (push == KH_NEVER || beat >= push) return beat;
    if (kh_sim_params(c->sim)->host_rtl_window) {
        kh_sim_log(c->sim, KH_LOG_WARN,
                   "host write of %s at cycle %llu lands before the final flit's push at cycle %llu: %s "
                   "(control.md §2.4, Open point 5; host_rtl_window = 1 models the RTL)",
                   off == KH_ORCH_PROG_DST ? "PROG_DST" : "TX_KICK", (unsigned long long)beat,
                   (unsigned long long)push,
                   off == KH_ORCH_PROG_DST ? "the final flit goes to the new PROG_DST"
                                           : "the mailbox flit collides with the final push");
        return beat;
    }
    cm->hold_until = push;
    cm->held++;
    return push;
}

/* ---- several processes (docs/mpi.md): the owner of a mesh touches it,
 * every process learns the outcome ---- */

static int owns(const kh_card *c, unsigned mesh) { return !c->dist.owns || c->dist.owns(c->dist.ctx, mesh); }

static void share(const kh_card *c, unsigned mesh, void *bytes, size_t n)
{
    if (c->dist.share) c->dist.share(c->dist.ctx, mesh, bytes, n);
}

/* The owner's return code (and message) on every process. */
static int shared_rc(const kh_card *c, unsigned mesh, int rc, char *err, size_t errlen)
{
    if (!c->dist.share) return rc;
    share(c, mesh, &rc, sizeof rc);
    if (rc && errlen) share(c, mesh, err, errlen);
    return rc;
}

static int mem_read(kh_card *c, unsigned mesh, uint64_t off, uint8_t *b, size_t n, char *err, size_t errlen)
{
    int rc = owns(c, mesh) ? c->mesh[mesh].mem.read(c->mesh[mesh].mem.ctx, off, b, n, err, errlen) : 0;
    rc = shared_rc(c, mesh, rc, err, errlen);
    if (!rc) share(c, mesh, b, n);
    return rc;
}

static int mem_write(kh_card *c, unsigned mesh, uint64_t off, const uint8_t *b, size_t n, char *err,
                     size_t errlen)
{
    int rc = owns(c, mesh) ? c->mesh[mesh].mem.write(c->mesh[mesh].mem.ctx, off, b, n, err, errlen) : 0;
    return shared_rc(c, mesh, rc, err, errlen);
}

static uint64_t ctrl_read(kh_card *c, unsigned mesh, uint32_t off, kh_cycle now)
{
    uint64_t v = owns(c, mesh) ? kh_orch_read(c->mesh[mesh].orch, off, now) : 0;
    share(c, mesh, &v, sizeof v);
    return v;
}

static void ctrl_write(kh_card *c, kh_orch *o, unsigned mesh, uint32_t off, uint64_t value, kh_cycle beat)
{
    if (owns(c, mesh)) kh_orch_write(o, off, value, 0xFF, beat);
}

/* guard_window reads the owner's orchestrator for PROG_DST and TX_KICK:
 * there every process takes the owner's outcome (beat and hold). */
static kh_cycle guard_shared(kh_card *c, unsigned mesh, uint32_t off, kh_cycle beat)
{
    card_mesh *cm = &c->mesh[mesh];
    if (!c->dist.share || (off != KH_ORCH_PROG_DST && off != KH_ORCH_TX_KICK)) return guard_window(c, cm, off, beat);
    if (owns(c, mesh)) beat = guard_window(c, cm, off, beat);
    uint64_t v[3] = {beat, cm->hold_until, cm->held};
    share(c, mesh, v, sizeof v);
    cm->hold_until = v[1];
    cm->held = v[2];
    return v[0];
}

/* A host access that may change the machine: what the agreements so far
 * carried is stale. */
static void void_rides(kh_card *c)
{
    if (c->dist.rides) c->ride_void = c->dist.rides(c->dist.ctx);
}

/* One word, no clock advance. */
static int write_word(kh_card *c, uint64_t addr, uint64_t value, char *err, size_t errlen)
{
    unsigned mesh = 0;
    uint64_t off = 0;
    if (check_aligned(addr, err, errlen)) return -1;
    switch (decode(c, addr, &mesh, &off)) {
    case WIN_CMD:
        kh_engine_write(c->engine, (uint32_t)off, value, kh_sim_now(c->sim));
        c->wrote_until = kh_sim_now(c->sim) + 2;
        return 0;
    case WIN_CTRL: {
        kh_orch *o = c->mesh[mesh].orch;
        kh_cycle beat = guard_shared(c, mesh, (uint32_t)(off & 0xFFFF), host_beat(c, o));
        ctrl_write(c, o, mesh, (uint32_t)off, value, beat);
        if (beat + 2 > c->wrote_until) c->wrote_until = beat + 2;
        return 0;
    }
    case WIN_MEM: {
        uint8_t b[8];
        kh_words_to_bytes(&value, 1, b);
        return mem_write(c, mesh, off, b, 8, err, errlen);
    }
    default: return unmapped(c, addr, err, errlen);
    }
}

/* One host master keeps its order on hardware: a read is issued after the
 * B of the write before it, so it sees that write and whatever the write
 * kicked. With zero-cost host accesses that takes the clock up to two cycles
 * past the write's beat (control.md §2.1: the register lands at the end of
 * the beat, kicks and clears act in the cycle after). */
static void wait_for_own_writes(kh_card *c)
{
    kh_cycle now = kh_sim_now(c->sim);
    if (c->wrote_until > now) kh_sim_run(c->sim, c->wrote_until - now);
}

/* A ride's read is taken whether or not the host reads again: only a
 * read that changes nothing (one that would settle the orchestrator
 * first would emit its trace events earlier than one process). */
static int ride_read(void *card, unsigned mesh, uint32_t off, kh_cycle at, uint64_t *v)
{
    kh_card *c = card;
    off &= 0xFFFF;
    if ((off >= KH_ORCH_AUX_STATW && off < KH_ORCH_AUX_STATW + 0x80) || /* the interlink settles its registers */
        (off >= KH_ORCH_SLOT && off < KH_ORCH_SLOT + KH_ORCH_SLOT_SIZE) || kh_orch_read_settles(c->mesh[mesh].orch, at))
        return 0;
    *v = kh_orch_read(c->mesh[mesh].orch, off, at);
    return 1;
}

/* Several processes: a read the last agreement of a run already carried
 * (a poll's next read after its run), or the read riding on the agreement
 * on idleness; either way one collective. 0 when it does not apply. */
static int read_dist(kh_card *c, card_win win, unsigned mesh, uint32_t off, uint64_t *value)
{
    if (!c->dist.ride || (win != WIN_CMD && win != WIN_CTRL)) return 0;
    kh_cycle now = kh_sim_now(c->sim);
    unsigned m = win == WIN_CTRL ? mesh : KH_CARD_NO_MESH;
    uint64_t v = 0;
    int idle;
    if (!c->dist.ridden(c->dist.ctx, m, off, now, c->ride_void, &v, &idle)) {
        if (win == WIN_CTRL && owns(c, mesh)) v = kh_orch_read(c->mesh[mesh].orch, off, now);
        idle = win == WIN_CTRL ? c->dist.idle_share(c->dist.ctx, mesh, &v) : kh_sim_idle(c->sim);
    }
    c->dist.ride(c->dist.ctx, m, off, ride_read, c); /* the next run's agreements carry it again */
    c->settled = idle;
    *value = win == WIN_CTRL ? v : kh_engine_read(c->engine, off, now);
    return 1;
}

static int read_word(kh_card *c, uint64_t addr, uint64_t *value, char *err, size_t errlen)
{
    unsigned mesh = 0;
    uint64_t off = 0;
    if (check_aligned(addr, err, errlen)) return -1;
    card_win win = decode(c, addr, &mesh, &off);
    if (win == WIN_CMD || win == WIN_CTRL) wait_for_own_writes(c);
    /* Several processes: the owner reads before the agreement on idleness,
     * which changes nothing here (no cycle runs, and every lane was emptied
     * by the agreement that ended the last run). */
    if (read_dist(c, win, mesh, (uint32_t)off, value)) return 0;
    c->settled = kh_sim_idle(c->sim);
    kh_cycle now = kh_sim_now(c->sim);
    switch (win) {
    case WIN_CMD: *value = kh_engine_read(c->engine, (uint32_t)off, now); return 0;
    case WIN_CTRL: *value = ctrl_read(c, mesh, (uint32_t)off, now); return 0;
    case WIN_MEM: {
        uint8_t b[8];
        if (mem_read(c, mesh, off, b, 8, err, errlen)) return -1;
        kh_words_from_bytes(value, 1, b);
        return 0;
    }
    default: return unmapped(c, addr, err, errlen);
    }
}

/* A polling loop must progress even when host accesses cost nothing: a
 * repeated read of an address already read in this cycle, with no write in
 * between, first runs the machine through its next event (if it has any). */
static void poll_progress(kh_card *c, uint64_t addr)
{
    kh_cycle now = kh_sim_now(c->sim);
    if (!zero_time(c)) return;
    if (c->seen_at != now) {
        c->seen_at = now;
        c->nseen = 0;
    }
    for (unsigned i = 0; i < c->nseen; i++) {
        if (c->seen[i] != addr) continue;
        kh_cycle next = kh_sim_next_wake(c->sim);
        if (next == KH_NEVER) return; /* nothing will change: the caller sees the same value */
        kh_sim_run(c->sim, (next > now ? next - now : 0) + 1);
        c->seen_at = kh_sim_now(c->sim);
        c->nseen = 0;
        break;
    }
    if (c->nseen < sizeof c->seen / sizeof c->seen[0]) c->seen[c->nseen++] = addr;
}

int kh_card_write64(kh_card *c, uint64_t addr, uint64_t value, char *err, size_t errlen)
{
    void_rides(c);
    c->nseen = 0;
    if (write_word(c, addr, value, err, errlen)) return -1;
    advance(c, 0, 1);
    return 0;
}

int kh_card_read64(kh_card *c, uint64_t addr, uint64_t *value, char *err, size_t errlen)
{
    if (kh_card_read64_sample(c, addr, value, err, errlen)) return -1;
    advance(c, 1, 1);
    return 0;
}

int kh_card_read64_sample(kh_card *c, uint64_t addr, uint64_t *value, char *err, size_t errlen)
{
    poll_progress(c, addr);
    return read_word(c, addr, value, err, errlen);
}

kh_cycle kh_card_read64_cycles(const kh_card *c) { return access_cycles(c, 1, 1); }

int kh_card_distributed(const kh_card *c) { return c->dist.share != NULL; }

/* The length of the memory-window burst starting at addr, at most n bytes:
 * an AXI burst of at most host_burst_beats beats that never crosses a
 * 4 KiB boundary (docs/host-link.md). 0 when addr is not in a memory window. */
static size_t mem_burst(kh_card *c, uint64_t addr, size_t n, unsigned *mesh, uint64_t *off)
{
    if (decode(c, addr, mesh, off) != WIN_MEM) return 0;
    size_t len = (size_t)(4096 - (addr & 4095));
    size_t most = (size_t)kh_sim_params(c->sim)->host_burst_beats * 8;
    if (len > most) len = most;
    return len < n ? len : n;
}

static int check_block(uint64_t addr, size_t n, char *err, size_t errlen)
{
    if (check_aligned(addr, err, errlen)) return -1;
    if (n % 8) {
        snprintf(err, errlen, "block of %zu bytes at 0x%llx: a block is a run of whole 64-bit words "
                 "(control.md §9.3)", n, (unsigned long long)addr);
        return -1;
    }
    return 0;
}

/* Refuse a block with any word outside the host map before any word
 * reaches the machine (nothing stored changes on a refused operation). */
static int check_mapped(kh_card *c, uint64_t addr, size_t n, char *err, size_t errlen)
{
    unsigned mesh;
    uint64_t off;
    for (size_t k = 0; k < n; k += 8)
        if (decode(c, addr + k, &mesh, &off) == WIN_NONE) return unmapped(c, addr + k, err, errlen);
    return 0;
}

int kh_card_write_block(kh_card *c, uint64_t addr, const void *bytes, size_t n, char *err, size_t errlen)
{
    void_rides(c);
    const uint8_t *b = bytes;
    c->nseen = 0;
    if (check_block(addr, n, err, errlen)) return -1;
    if (n == 0) return 0;
    if (check_mapped(c, addr, n, err, errlen)) return -1;
    /* Several processes, a block of more than one burst: one agreement on
     * whether the machine is idle, and if it is, every burst's link time
     * runs over the idle machine without an agreement (kh_sim_run_idle):
     * writing the memory window wakes nothing (kh_node_host_write copies
     * bytes). A single burst keeps its one run, no question added. */
    int quiet = 0, asked = 0;
    for (size_t k = 0; k < n;) {
        unsigned mesh;
        uint64_t off;
        size_t len = mem_burst(c, addr + k, n - k, &mesh, &off);
        if (len) { /* one burst: its bytes at once, then its time */
            if (!asked && c->dist.share && len < n - k) {
                asked = 1;
                quiet = kh_sim_idle(c->sim);
                /* that agreement may carry a ride; the block's bytes land
                 * after it, so a later read must not take it */
                void_rides(c);
            }
            if (mem_write(c, mesh, off, b + k, len, err, errlen)) return -1;
            run_burst(c, 0, len / 8, quiet);
            k += len;
            continue;
        }
        quiet = 0;
        uint64_t v;
        kh_words_from_bytes(&v, 1, b + k);
        if (kh_card_write64(c, addr + k, v, err, errlen)) return -1;
        k += 8;
    }
    return 0;
}

int kh_card_read_block(kh_card *c, uint64_t addr, void *bytes, size_t n, char *err, size_t errlen)
{
    uint8_t *b = bytes;
    if (check_block(addr, n, err, errlen)) return -1;
    if (n == 0) return 0;
    if (check_mapped(c, addr, n, err, errlen)) return -1;
    /* A block read again is a poll too: judged on its first address. */
    poll_progress(c, addr);
    int settled = 1;
    /* Several processes: once an agreement found every process idle, the
     * block's later bursts find it so too (reading the memory window wakes
     * nothing, kh_node_host_read), and their link time runs over an idle
     * machine without an agreement each (kh_sim_run_idle): one process's
     * clock and state, a query and a run fewer a burst. */
    int quiet = 0;
    for (size_t k = 0; k < n;) {
        unsigned mesh;
        uint64_t off;
        size_t len = mem_burst(c, addr + k, n - k, &mesh, &off);
        if (len) {
            if (!quiet) {
                int idle = kh_sim_idle(c->sim);
                settled &= idle;
                quiet = idle && c->dist.share;
            }
            if (mem_read(c, mesh, off, b + k, len, err, errlen)) return -1;
            run_burst(c, 1, len / 8, quiet);
            k += len;
            continue;
        }
        quiet = 0;
        uint64_t v;
        if (read_word(c, addr + k, &v, err, errlen)) return -1;
        settled &= c->settled;
        advance(c, 1, 1);
        kh_words_to_bytes(&v, 1, b + k);
        k += 8;
    }
    c->settled = settled;
    return 0;
}

int kh_card_read_settled(const kh_card *c) { return c->settled; }

uint64_t kh_card_held_beats(const kh_card *c, unsigned mesh)
{
    return mesh < KH_HOST_MESHES ? c->mesh[mesh].held : 0;
}

/* ---- the engine's master: control space only (32-bit addresses) ---- */

static int eng_bus_write(void *ctx, uint32_t addr, uint64_t data, kh_cycle beat)
{
    kh_card *c = ctx;
    unsigned mesh = 0;
    uint64_t off = 0;
    switch (decode(c, addr, &mesh, &off)) {
    case WIN_CMD: kh_engine_write(c->engine, (uint32_t)off, data, beat); return 0;
    case WIN_CTRL:
        c->eng_target = c->mesh[mesh].orch;
        c->eng_until = beat + 1;
        ctrl_write(c, c->eng_target, mesh, (uint32_t)off, data, beat);
        return 0;
    default: return -1; /* never a memory window: ADDR_W is 32 (§3) */
    }
}

static int eng_bus_read(void *ctx, uint32_t addr, uint64_t *data, kh_cycle at)
{
    kh_card *c = ctx;
    unsigned mesh = 0;
    uint64_t off = 0;
    switch (decode(c, addr, &mesh, &off)) {
    case WIN_CMD: *data = kh_engine_read(c->engine, (uint32_t)off, at); return 0;
    case WIN_CTRL:
        c->eng_target = c->mesh[mesh].orch;
        c->eng_until = at + 1;
        /* several processes: the value its owner shared before cycle at */
        *data = c->dist.share && c->pre_at == at && c->pre_addr == addr
                    ? c->pre_value
                    : kh_orch_read(c->eng_target, (uint32_t)off, at);
        return 0;
    default: return -1;
    }
}

kh_card *kh_card_new(kh_sim *sim, char *err, size_t errlen)
{
    kh_card *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory creating the card");
        return NULL;
    }
    c->sim = sim;
    c->seen_at = KH_NEVER;
    c->pre_at = KH_NEVER;
    kh_engine_bus bus = {.ctx = c, .write = eng_bus_write, .read = eng_bus_read};
    c->engine = kh_engine_new(sim, &bus, err, errlen);
    if (!c->engine) {
        free(c);
        return NULL;
    }
    return c;
}

void kh_card_free(kh_card *c) { free(c); }

int kh_card_attach_mesh(kh_card *c, unsigned mesh, kh_orch *orch, const kh_card_mem *mem, char *err,
                        size_t errlen)
{
    if (mesh >= KH_HOST_MESHES || c->mesh[mesh].present) {
        snprintf(err, errlen, "mesh %u cannot be attached: meshes are 0..%u, each once (control.md §9.2)", mesh,
                 KH_HOST_MESHES - 1);
        return -1;
    }
    c->mesh[mesh].orch = orch;
    if (mem) c->mesh[mesh].mem = *mem;
    c->mesh[mesh].present = 1;
    return 0;
}

static const kh_card_reg orch_regs[] = {
    {"CTRL", KH_ORCH_CTRL},           {"STATUS", KH_ORCH_STATUS},       {"CAPS", KH_ORCH_CAPS},
    {"IRQ_STAT", KH_ORCH_IRQ_STAT},   {"IRQ_EN", KH_ORCH_IRQ_EN},       {"PROG_DST", KH_ORCH_PROG_DST},
    {"PROG_LEN", KH_ORCH_PROG_LEN},   {"PROG_KICK", KH_ORCH_PROG_KICK}, {"PROG_STAT", KH_ORCH_PROG_STAT},
    {"PROG_CRED", KH_ORCH_PROG_CRED}, {"PROG_BASE", KH_ORCH_PROG_BASE}, {"SIG_DONE", KH_ORCH_SIG_DONE},
    {"AUX_STAT", KH_ORCH_AUX_STAT},   {"TX_KICK", KH_ORCH_TX_KICK},     {"TX_STATUS", KH_ORCH_TX_STATUS},
    {"RX_POP", KH_ORCH_RX_POP},       {"RX_STATUS", KH_ORCH_RX_STATUS},
};

static const kh_card_reg engine_regs[] = {
    {"ENG_CTRL", KH_ENG_CTRL},
    {"ENG_PC", KH_ENG_PC},
    {"ENG_CODE", KH_ENG_CODE},
    {"ENG_POLLS", KH_ENG_POLLS},
};

const kh_card_reg *kh_card_orch_regs(size_t *n)
{
    *n = sizeof orch_regs / sizeof orch_regs[0];
    return orch_regs;
}

const kh_card_reg *kh_card_engine_regs(size_t *n)
{
    *n = sizeof engine_regs / sizeof engine_regs[0];
    return engine_regs;
}

static const char *reg_name(const kh_card_reg *r, size_t n, uint64_t off)
{
    for (size_t i = 0; i < n; i++)
        if (r[i].off == off) return r[i].name;
    return NULL;
}

void kh_card_addr_name(const kh_card *c, uint64_t addr, char *buf, size_t len)
{
    unsigned mesh = 0;
    uint64_t off = 0;
    const char *name;
    switch (decode(c, addr, &mesh, &off)) {
    case WIN_CMD:
        name = reg_name(engine_regs, sizeof engine_regs / sizeof engine_regs[0], off);
        if (name)
            snprintf(buf, len, "%s of the command window", name);
        else
            snprintf(buf, len, "command window + 0x%llx", (unsigned long long)off);
        return;
    case WIN_CTRL:
        name = reg_name(orch_regs, sizeof orch_regs / sizeof orch_regs[0], off);
        if (name)
            snprintf(buf, len, "%s of mesh %u's node control window", name, mesh);
        else if (off >= KH_ORCH_NODE_STATUS && off < KH_ORCH_STAGE) /* 0x1000 + 8 {y,x}, alias 0x1800 */
            snprintf(buf, len, "NODE_STATUS(%u,%u) of mesh %u", (unsigned)((off >> 3) & 15), (unsigned)((off >> 7) & 15),
                     mesh);
        else
            snprintf(buf, len, "mesh %u's node control window + 0x%llx", mesh, (unsigned long long)off);
        return;
    case WIN_MEM: snprintf(buf, len, "mesh %u's memory window + 0x%llx", mesh, (unsigned long long)off); return;
    default: snprintf(buf, len, "unmapped address"); return;
    }
}

kh_sim *kh_card_sim(const kh_card *c) { return c->sim; }
kh_engine *kh_card_engine(const kh_card *c) { return c->engine; }

void kh_card_set_dist(kh_card *c, const kh_card_dist *d)
{
    if (d) c->dist = *d;
    else memset(&c->dist, 0, sizeof c->dist);
}

const kh_card_dist *kh_card_get_dist(const kh_card *c) { return c->dist.share ? &c->dist : NULL; }

void kh_card_engine_prefetch(kh_card *c, kh_cycle now)
{
    kh_cycle at;
    uint32_t addr = 0;
    unsigned mesh = 0;
    uint64_t off = 0;
    if (!c->dist.share || kh_engine_next_action(c->engine, &at, &addr) != 2 || at != now) return;
    if (decode(c, addr, &mesh, &off) != WIN_CTRL) return;
    c->pre_value = ctrl_read(c, mesh, (uint32_t)off, now);
    c->pre_at = now;
    c->pre_addr = addr;
}

/* Checkpoints (docs/checkpoint.md): the host link's timing state; the
 * engine is a component and saves itself. */
void kh_card_ckpt(kh_card *c, kh_ck *ck)
{
    for (unsigned i = 0; i < KH_HOST_MESHES; i++) {
        KH_CK(ck, c->mesh[i].hold_until);
        KH_CK(ck, c->mesh[i].held);
    }
    unsigned target = KH_HOST_MESHES; /* none */
    for (unsigned i = 0; i < KH_HOST_MESHES; i++)
        if (c->eng_target && c->mesh[i].present && c->mesh[i].orch == c->eng_target) target = i;
    KH_CK(ck, target);
    if (kh_ck_loading(ck)) {
        if (target > KH_HOST_MESHES || (target < KH_HOST_MESHES && !c->mesh[target].present)) {
            kh_ck_fail(ck, "%s: the engine's target window %u is no mesh of this machine", kh_ck_where(ck),
                       target);
            return;
        }
        c->eng_target = target < KH_HOST_MESHES ? c->mesh[target].orch : NULL;
    }
    KH_CK(ck, c->eng_until);
    KH_CK(ck, c->wrote_until);
    KH_CK(ck, c->seen_at);
    c->nseen = (unsigned)kh_ck_count(ck, c->nseen, 8, "polled addresses");
    KH_CK_ARR(ck, c->seen, 8);
    KH_CK(ck, c->settled);
    /* The engine's sample shared by its owner (several processes) serves a
     * cycle of the run it was taken in; between runs it can only be stale,
     * and is saved as none, as one process has it: the same bytes. */
    kh_cycle pre_at = c->pre_at;
    uint32_t pre_addr = c->pre_addr;
    uint64_t pre_value = c->pre_value;
    if (!kh_ck_loading(ck) && (pre_at == KH_NEVER || pre_at < kh_sim_now(c->sim))) {
        pre_at = KH_NEVER;
        pre_addr = 0;
        pre_value = 0;
    }
    KH_CK(ck, pre_at);
    KH_CK(ck, pre_addr);
    KH_CK(ck, pre_value);
    if (kh_ck_loading(ck)) {
        c->pre_at = pre_at;
        c->pre_addr = pre_addr;
        c->pre_value = pre_value;
    }
}
