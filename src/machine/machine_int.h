/* The machine's private layout (src/machine only): machine.c builds it,
 * machine_ckpt.c saves and restores it. */
#ifndef KOHAKU_MACHINE_INT_H
#define KOHAKU_MACHINE_INT_H

#include "kohaku/machine.h"
#include "kohaku/mesh.h"

#define MAX_COORD 16 /* POS_WIDTH 4 (flits.md §1) */

/* One mesh of the machine: a partition that meets the others only at its
 * interlink's links. */
typedef struct mach_mesh {
    kh_map *map;
    kh_mesh *mesh;
    kh_node *node;
    kh_orch *orch;
    kh_cu *unit[MAX_COORD][MAX_COORD];
    kh_rv32 *cpu; /* the node's control processor at (0,0), NULL when cpu_mode has none */
    kh_rv64_node *cpu64; /* the RV64 complex instead, with cpu_rv64 (docs/rv64.md §14) */
    unsigned comp_lo, comp_hi; /* its components' ids (partitions, docs/mpi.md) */
} mach_mesh;

struct kh_machine {
    kh_sim *sim;
    unsigned nmeshes;
    mach_mesh mesh[KH_MACHINE_MAX_MESHES];
    kh_card *card;
    kh_check *check;            /* the live flit checker, NULL when off */
    unsigned check_logged[40];  /* findings logged per rule by the machine's own reporter */
    int check_env;              /* turned on by KOHAKU_CHECK: findings to stderr, past any log sink */
    char check_error[1000];      /* the first violation it saw */
    int check_restored;         /* check holds a checkpoint's stream state: kh_machine_set_check keeps it */
    char shared_error[1000];     /* several processes: the first error any reported */
    /* what it was built from, for checkpoints (machine_ckpt.c) */
    char *map_text[KH_MACHINE_MAX_MESHES]; /* copies; NULL: the default map */
    int interlink;
};

/* machine_ckpt.c: a process's replica saved as if whole, the splices'
 * bytes in place of their components' sections (a save under MPI) */
int kh_machine_save_spliced(kh_machine *m, const kh_ckpt_info *info, const kh_ck_splice *sp, unsigned nsp,
                            uint8_t **out, size_t *outlen, char *err, size_t errlen);
/* machine_ckpt_part.c: the save under MPI (collective). 0: the leader's
 * *out holds the file's bytes (NULL elsewhere); -1 on every process with
 * the same message. */
int kh_machine_save_part(kh_machine *m, const kh_ckpt_info *info, uint8_t **out, size_t *outlen, char *err,
                         size_t errlen);
/* Collective: the leader's rc and message on every process. */
int kh_machine_save_outcome(kh_machine *m, int rc, char *err, size_t errlen);

#endif
