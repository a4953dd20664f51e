/* A parsed host session (docs/session.md). */
#ifndef KOHAKU_SESSION_INT_H
#define KOHAKU_SESSION_INT_H

#include <stdint.h>

#include "kohaku/session.h"
#include "kohaku/sim.h"

typedef enum sess_op {
    SESS_WRITE,   /* write ADDR VALUE */
    SESS_READ,    /* read ADDR [VALUE [mask M]] */
    SESS_POLL,    /* poll ADDR VALUE [mask M] [limit N] */
    SESS_UPLOAD,  /* upload ADDR hex ... | file PATH */
    SESS_COMPARE, /* compare ADDR hex ... | file PATH */
    SESS_DUMP,    /* dump ADDR BYTES */
    SESS_RUN,     /* run N */
    SESS_IDLE,    /* idle [limit N] */
    SESS_CPU,     /* cpu PROGRAM [arg=N] [txn=T] [last=0|1]: load and kick the node processor */
    SESS_SAVE,    /* save FILE: a checkpoint of the machine (docs/checkpoint.md); bytes = the path */
    SESS_CPU64,   /* cpu64 PROGRAM: load and boot the RV64 complex (docs/rv64.md §14); bytes = the path */
} sess_op;

/* 56 bytes. A line read again with the same mesh in force is the same
 * command: it is stored once, and the session lists each command it runs as
 * a sess_ref (bench (2)'s session runs 85,148 of 42 distinct ones; a page
 * of memory costs a fault). */
typedef struct sess_cmd {
    uint64_t addr, value, mask, limit;
    uint8_t *bytes;    /* upload / compare data */
    uint32_t n;        /* bytes (dump: length), at most SESS_DATA_MAX */
    unsigned line;     /* the line it was first read from (each run has its own in sess_ref) */
    int stage_slot;    /* the first write of `stage SLOT`: SLOT, else -1 */
    uint8_t op;        /* sess_op */
    uint8_t has_value; /* read with an expectation */
    uint8_t mesh;      /* cpu: the mesh whose processor is loaded; value = arg, addr = txn, has_value = last */
} sess_cmd;

/* One command of the session, in order: which stored command, read from
 * which line. */
typedef struct sess_ref {
    unsigned cmd, line;
} sess_ref;

struct kh_session {
    char name[256];
    sess_cmd *cmd; /* the distinct commands, in the order first read */
    unsigned ncmd, cap;
    sess_ref *ref; /* the session's commands in order */
    unsigned nref, capref;
    unsigned top_mesh, top_mesh_line; /* 1 + the highest `mesh N`, and its line */
};

/* The session's i-th command (i < nref). */
static inline const sess_cmd *sess_at(const kh_session *s, unsigned i) { return &s->cmd[s->ref[i].cmd]; }

#define SESS_POLL_LIMIT UINT64_C(10000000) /* cycles a poll waits by default */
#define SESS_IDLE_LIMIT UINT64_C(10000000) /* cycles `idle` waits by default */
/* The session clock ends where the simulation's does (kohaku/sim.h). */
#define SESS_CLOCK_MAX KH_CLOCK_END
#define SESS_DATA_MAX (UINT64_C(1) << 24) /* bytes of an upload or compare operand, as of a dump */
_Static_assert(SESS_DATA_MAX <= UINT32_MAX, "sess_cmd.n holds a data operand's size");

#endif
