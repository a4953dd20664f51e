/* A whole machine built from a map picture (docs/design.md §4): the
 * simulation, the mesh, the system node with its memory ports, the
 * orchestrator as the node's control agent, one shell with its unit per unit
 * token, and the host card with its control-program engine.
 */
#ifndef KOHAKU_MACHINE_H
#define KOHAKU_MACHINE_H

#include <stddef.h>

#include "kohaku/card.h"
#include "kohaku/cu.h"
#include "kohaku/orch.h"
#include "kohaku/params.h"
#include "kohaku/sim.h"

typedef struct kh_machine kh_machine;
typedef struct kh_node kh_node;
typedef struct kh_mesh kh_mesh;

/* Build a machine from map text (NULL: the built-in default machine) with
 * parameters p (NULL: the defaults). NULL with a message on a refused map,
 * a unit kind that is not built, or a bad parameter. */
kh_machine *kh_machine_new(const char *map_text, const kh_params *p, char *err, size_t errlen);
/* Same from a map file (messages prefixed with the file name). */
kh_machine *kh_machine_load(const char *path, const kh_params *p, char *err, size_t errlen);
void kh_machine_free(kh_machine *m);

kh_sim *kh_machine_sim(const kh_machine *m);
kh_card *kh_machine_card(const kh_machine *m);
kh_mesh *kh_machine_mesh(const kh_machine *m);
kh_node *kh_machine_node(const kh_machine *m);
kh_orch *kh_machine_orch(const kh_machine *m);
/* The shell at (x, y), or NULL if no unit sits there. */
kh_cu *kh_machine_unit(const kh_machine *m, unsigned x, unsigned y);

/* The first error any part of the machine reported while running (a kick
 * the orchestrator refused, ...), or NULL. */
const char *kh_machine_error(const kh_machine *m);
/* Describe why the machine is not progressing: every component's
 * outstanding work (kh_sim_describe_stuck) and the orchestrator's hints.
 * Returns the number of lines written. */
int kh_machine_diagnose(kh_machine *m, char *buf, size_t len);

/* The built-in default machine: the picture of maps/mesh_2x2_6+2.txt (four
 * matmul clusters on the router locals, two more on the edges, two vector
 * cores, two memory ports). */
const char *kh_machine_default_map(void);

#endif
