/* The mover's 6-D descriptor walker (memory.md §11.2): an odometer over the
 * live dimensions (the highest-numbered live one innermost), an affine
 * address with signed 32-bit strides, and two bound axes that decide each
 * element's valid bit. Both walkers (source and destination) are this. */
#ifndef KH_SYSNODE_WALKER_H
#define KH_SYSNODE_WALKER_H

#include <stdint.h>

#define KH_WALK_DIMS 6 /* dimensions per walker (memory.md §11.2) */

typedef struct kh_walk_dim {
    uint16_t count;  /* loop count, 0 acts as 1 */
    int32_t stride;  /* signed byte stride */
    uint8_t axis;    /* 0 none, 1 bound axis 0, 2 bound axis 1, 3 none */
    int16_t astep;   /* signed axis step */
} kh_walk_dim;

typedef struct kh_walk_bound {
    int16_t base;    /* signed axis base */
    uint16_t ext;    /* extent; 0 disables the axis */
} kh_walk_bound;

typedef struct kh_walk_desc {
    uint64_t base;   /* 40-bit byte base */
    unsigned ndim;   /* 0..7; >= 6 means all six */
    kh_walk_dim dim[KH_WALK_DIMS];
    kh_walk_bound bound[2];
} kh_walk_desc;

typedef struct kh_walk_elem {
    uint64_t addr;   /* 40-bit byte address */
    int valid;       /* every enabled bound axis contains the element */
    int misaligned;  /* addr[4:0] != 0 */
    int last;        /* final element of the sequence */
} kh_walk_elem;

/* Walk state. It reads the descriptor through d on every element, so a
 * register commit during a move acts at once (memory.md Open point 12). */
typedef struct kh_walk {
    const kh_walk_desc *d;
    uint32_t idx[KH_WALK_DIMS];
    int done;        /* stepped past the last element */
} kh_walk;

/* Reset values of memory.md §11.1: base 0, ndim 1, counts 0, strides 0. */
void kh_walk_desc_reset(kh_walk_desc *d);
void kh_walk_start(kh_walk *w, const kh_walk_desc *d);
/* The current element; 0 when the walk is done. */
int kh_walk_get(const kh_walk *w, kh_walk_elem *e);
/* Advance the odometer (innermost live dimension fastest). */
void kh_walk_step(kh_walk *w);

#endif
