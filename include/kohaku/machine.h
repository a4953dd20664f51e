/* A whole machine (docs/design.md §4, docs/machine.md): one simulation
 * holding one to four meshes, each with its routers, system node (memory
 * ports, orchestrator as the control agent, mover) and one shell with its
 * unit per unit token, plus the host card with its control-program engine.
 *
 * A machine comes from a map picture (one mesh, no interlink: ILINK = 0) or
 * from a machine file naming one to four maps in mesh-id order (every node
 * with its interlink, MESH_ID = its index, neighbours joined in a line,
 * control.md §7.1). The meshes exchange flits only through the interlink's
 * links, whose latency is at least one cycle: each mesh is a partition.
 */
#ifndef KOHAKU_MACHINE_H
#define KOHAKU_MACHINE_H

#include <stddef.h>

#include "kohaku/card.h"
#include "kohaku/check.h"
#include "kohaku/cu.h"
#include "kohaku/mesh.h"
#include "kohaku/orch.h"
#include "kohaku/params.h"
#include "kohaku/sim.h"

typedef struct kh_machine kh_machine;
typedef struct kh_node kh_node;
typedef struct kh_mesh kh_mesh;

#define KH_MACHINE_MAX_MESHES 4 /* mesh ids 0..3 (control.md §7.1) */

/* ---- what to build: a map picture or a machine file ---- */

typedef struct kh_machine_spec kh_machine_spec;

/* Parse machine text: a machine file (its first word is `machine`,
 * docs/machine.md) or a map picture. name is used in messages; map files a
 * machine file names are read relative to base_dir (NULL: the current
 * directory). NULL with a message naming the line on error. */
kh_machine_spec *kh_machine_spec_parse(const char *text, const char *name, const char *base_dir, char *err,
                                       size_t errlen);
/* Read PATH ("default": the built-in default machine). */
kh_machine_spec *kh_machine_spec_load(const char *path, char *err, size_t errlen);
void kh_machine_spec_free(kh_machine_spec *s);
/* A machine file (every node gets its interlink) rather than a map picture. */
int kh_machine_spec_is_file(const kh_machine_spec *s);
unsigned kh_machine_spec_nmeshes(const kh_machine_spec *s);
/* Mesh i's map text (NULL: the built-in default map) and where it came from. */
const char *kh_machine_spec_map(const kh_machine_spec *s, unsigned mesh);
const char *kh_machine_spec_map_name(const kh_machine_spec *s, unsigned mesh);
/* Apply the file's `param` lines to p, in file order (a map picture has
 * none). 0, or -1 with a message naming the line. */
int kh_machine_spec_params(const kh_machine_spec *s, kh_params *p, char *err, size_t errlen);
/* Build the machine with parameters p (NULL: defaults; the spec's own
 * parameters are NOT applied here: see kh_machine_spec_params). */
kh_machine *kh_machine_build(const kh_machine_spec *s, const kh_params *p, char *err, size_t errlen);

/* ---- shortcuts ---- */

/* One mesh from map text (NULL: the built-in default machine), no
 * interlink, parameters p (NULL: the defaults). NULL with a message on a
 * refused map, a unit kind that is not built, or a bad parameter. */
kh_machine *kh_machine_new(const char *map_text, const kh_params *p, char *err, size_t errlen);
/* n meshes (1..4) from map texts (an entry NULL: the default map), each
 * node with its interlink, joined in a line in array order. */
kh_machine *kh_machine_new_meshes(const char *const *maps, unsigned n, const kh_params *p, char *err,
                                  size_t errlen);
/* From a map file or a machine file (messages prefixed with the file name).
 * A machine file's parameter lines are applied on top of p. */
kh_machine *kh_machine_load(const char *path, const kh_params *p, char *err, size_t errlen);
void kh_machine_free(kh_machine *m);

kh_sim *kh_machine_sim(const kh_machine *m);
kh_card *kh_machine_card(const kh_machine *m);
unsigned kh_machine_nmeshes(const kh_machine *m);
/* Mesh 0's parts (a one-mesh machine's only ones). */
kh_mesh *kh_machine_mesh(const kh_machine *m);
kh_node *kh_machine_node(const kh_machine *m);
kh_orch *kh_machine_orch(const kh_machine *m);
/* The shell at (x, y) of mesh 0, or NULL if no unit sits there. */
kh_cu *kh_machine_unit(const kh_machine *m, unsigned x, unsigned y);
/* Mesh i's parts; NULL when i is not a mesh of this machine. */
kh_mesh *kh_machine_mesh_at(const kh_machine *m, unsigned mesh);
kh_node *kh_machine_node_at(const kh_machine *m, unsigned mesh);
kh_orch *kh_machine_orch_at(const kh_machine *m, unsigned mesh);
kh_cu *kh_machine_unit_at(const kh_machine *m, unsigned mesh, unsigned x, unsigned y);
/* Mesh i's control processor at (0,0) (rv32.h; its shell is also
 * kh_machine_unit_at(m, i, 0, 0)); NULL when cpu_mode builds none. */
typedef struct kh_rv32 kh_rv32;
kh_rv32 *kh_machine_cpu_at(const kh_machine *m, unsigned mesh);
/* The RV64 complex of a mesh's node (machine parameter cpu_rv64), or NULL. */
typedef struct kh_rv64_node kh_rv64_node;
kh_rv64_node *kh_machine_cpu64_at(const kh_machine *m, unsigned mesh);

/* The first error any part of the machine reported while running (a kick
 * an orchestrator refused, ...), or NULL. */
const char *kh_machine_error(const kh_machine *m);
/* Mesh `mesh`'s components are the ids [*lo, *hi) (for partitioning a
 * machine across processes, docs/mpi.md). 0, or -1 for no such mesh. */
int kh_machine_mesh_comps(const kh_machine *m, unsigned mesh, unsigned *lo, unsigned *hi);

/* The topology and build of a machine as a host driver knows it from the
 * card's datasheet, without a simulated access: the units of one mesh in
 * row-major order (y outer, x inner), each with its CU_TYPE (CU_CAPS[63:48])
 * and the memory port it is bound to. Returns how many units the mesh has;
 * fills at most max. */
typedef struct kh_machine_unit_info {
    uint8_t x, y;
    uint8_t mem_x, mem_y; /* the bound memory port (mesh.md §2) */
    uint16_t cu_type;
} kh_machine_unit_info;
unsigned kh_machine_units(const kh_machine *m, unsigned mesh, kh_machine_unit_info *out, unsigned max);
/* The parameters the machine was built with. */
const kh_params *kh_machine_params(const kh_machine *m);
/* Describe why the machine is not progressing: every component's
 * outstanding work (kh_sim_describe_stuck) and each orchestrator's hints.
 * Returns the number of lines written. */
int kh_machine_diagnose(kh_machine *m, char *buf, size_t len);

/* Live flit checking (docs/check.md): from now on every flit a memory
 * port, unit shell or the orchestrator (through its node) injects is
 * checked against flits.md §9 V1-V23 with its sender's context, and every
 * injection and delivery feeds the stream rules V30-V39 of its mesh. Each
 * finding goes to report; with report NULL the machine reports itself:
 * violations are logged as errors and the first one becomes
 * kh_machine_error(), warnings are logged as warnings (a few per rule, the
 * rest counted). A second call replaces the checker (its counts start
 * over). Works together with a trace sink, attached before or after
 * (kh_trace_fanout_new; detach in the reverse order).
 * With the environment variable KOHAKU_CHECK set (not "0") every machine
 * is built with the machine's own reporter: a switch for test sweeps.
 * 0, or -1 out of memory. */
int kh_machine_set_check(kh_machine *m, kh_check_report_fn report, void *ctx);
/* The machine's checker (for kh_check_get_counts), NULL when none. */
kh_check *kh_machine_check(const kh_machine *m);

/* The layout of every mesh as a JSON array (kh_mesh_layout_json), for the
 * stats' run section; appended to buf (kh_bufcat). */
void kh_machine_layout_json(const kh_machine *m, char *buf, size_t len, size_t *used);

/* ---- checkpoints (docs/checkpoint.md) ---- */

/* Where a session stood when it saved (0s when the library saved). */
typedef struct kh_ckpt_info {
    uint32_t session_cmd;  /* the index of the session command after the save */
    uint32_t session_line; /* the save line's number */
    char session_name[256];
} kh_ckpt_info;
/* Save the whole machine, between runs, to path (written beside it, then
 * renamed). A machine with a part a checkpoint does not cover yet, the
 * live checker on, or partitioned across processes is refused, naming
 * it, and nothing is written. 0, or -1 with the message. */
int kh_machine_save(kh_machine *m, const char *path, const kh_ckpt_info *info, char *err, size_t errlen);
int kh_machine_save_bytes(kh_machine *m, const kh_ckpt_info *info, uint8_t **out, size_t *outlen, char *err,
                          size_t errlen);
/* A new machine from a checkpoint: built from the file's description,
 * then its state loaded. like: NULL, or a machine the file's must equal
 * (the message names the parameter or map line that differs). Another
 * format version, another parameter set, a truncated or corrupted file is
 * refused naming what differs or where it breaks; NULL then, and nothing
 * half-built remains. info (if not NULL) gets the SESS section. */
kh_machine *kh_machine_restore(const char *path, const kh_machine *like, kh_ckpt_info *info, char *err,
                               size_t errlen);
kh_machine *kh_machine_restore_bytes(const uint8_t *bytes, size_t n, const kh_machine *like, kh_ckpt_info *info,
                                     char *err, size_t errlen);

/* The built-in default machine: the picture of maps/mesh_2x2_6+2.txt (four
 * matmul clusters on the router locals, two more on the edges, two vector
 * cores, two memory ports). */
const char *kh_machine_default_map(void);
/* The map tokens of the unit registry's kinds, for kh_map_parse: a map
 * names units by token; the machine turns each into its registry row. */
void kh_machine_map_units(kh_map_units *out);

#endif
