/* The table engine's own structures (public face: include/kohaku/isa.h).
 * Stage 1: nothing here may include a generated header. */
#ifndef KOHAKU_ISA_INT_H
#define KOHAKU_ISA_INT_H

#include <stdint.h>

#include "kohaku/isa.h"

#define ISA_NAME 40      /* longest name + 1 */
#define ISA_MAX_PARTS 4  /* pieces of one split field */

enum isa_field_flags {
    ISA_F_SIGNED = 1 << 0,   /* two's complement */
    ISA_F_RESERVED = 1 << 1, /* must be zero (validator error) */
    ISA_F_IGNORED = 1 << 2,  /* named so words round-trip; hardware ignores */
    ISA_F_VIEW = 1 << 3,     /* alias over bits another field owns */
    ISA_F_LINT = 1 << 4,     /* nonzero draws a validator warning */
    ISA_F_HEX = 1 << 5,      /* display in hex */
    ISA_F_DEC = 1 << 6,      /* display in decimal */
    ISA_F_MAX = 1 << 7,      /* max= given */
    ISA_F_OPEN = 1 << 8,     /* enum names only some legal values */
};

typedef struct isa_enum {
    char name[ISA_NAME];
    uint64_t value;
} isa_enum;

typedef struct isa_part {
    unsigned hi, lo; /* layout bits, inclusive */
} isa_part;

typedef struct isa_field {
    char name[ISA_NAME];
    isa_part part[ISA_MAX_PARTS]; /* most significant part first */
    unsigned nparts;
    unsigned width;
    unsigned flags;
    uint64_t dflt; /* default (two's complement, masked, for signed fields) */
    uint64_t max;
    char *zero;    /* zero=V documentation, or NULL */
    char *doc;     /* or NULL */
    isa_enum *enums;
    unsigned nenums;
} isa_field;

typedef struct isa_opcode {
    char name[ISA_NAME];
    uint64_t value;
    unsigned *uses; /* field indices as written (opfield added first) */
    unsigned nuses;
    unsigned *show; /* print set: uses + filler fields, table order */
    unsigned nshow;
    const kh_isa_layout *ext; /* second word's layout, or NULL */
    char *doc;
} isa_opcode;

/* `rule OP FIELD max=V doc=...` or `rule OP when FIELD need F... doc=...`:
 * a word of opcode OP that breaks it is legal for the hardware but refused
 * by an encoder named in doc: the validator warns, the word is kept. */
#define ISA_RULE_NEED 4
typedef struct isa_rule {
    unsigned op;                    /* index into ops */
    int when;                       /* 0: FIELD <= max; 1: FIELD != 0 needs one of need[] != 0 */
    unsigned field;
    uint64_t max;
    unsigned need[ISA_RULE_NEED], nneed;
    char *doc;
} isa_rule;

struct kh_isa_layout {
    char name[ISA_NAME];
    char table[ISA_NAME];
    char *path;
    char *doc;
    char unit[ISA_NAME]; /* "" if none */
    unsigned width, words;
    int type;    /* header type code, -1 if none */
    int opfield; /* field index, -1 if none */
    isa_field *fields;
    unsigned nfields;
    isa_opcode *ops;
    unsigned nops;
    isa_rule *rules;
    unsigned nrules;
    unsigned *raw_show; /* print set of a word whose opcode has no name */
    unsigned nraw_show;
};

struct kh_isa {
    kh_isa_layout **layouts;
    unsigned n;
    char (*tables)[ISA_NAME];
    unsigned ntables;
};

/* Value helpers (value.c). */
int kh_isa_val_is_zero(const kh_isa_val *v);
/* Parse a RANGE token ([hi:lo], [bit] or {[..],[..]}) into fd's parts and
 * width. 0, or -1 when malformed. */
int kh_isa_parse_range(const char *s, isa_field *fd);
/* Print a field's range like the table writes it. */
void kh_isa_range_text(const isa_field *fd, char *out, size_t outlen);
/* Print set of the opcode with opfield value `op` (named or raw). */
const unsigned *kh_isa_show_set(const kh_isa_layout *l, uint64_t op, unsigned *n,
                             const isa_opcode **opc);
/* Case-insensitive name compare. */
int kh_isa_strieq(const char *a, const char *b);
/* Message into err with formatting (truncates safely). */
void kh_isa_errf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* C identifier form of a name ('-' -> '_'), lower or upper case. */
void kh_isa_cname(const char *name, int upper, char *out, size_t outlen);
/* The layouts of one table, in order. */
unsigned kh_isa_table_layouts(const kh_isa *isa, const char *table, const kh_isa_layout **out,
                           unsigned max);

#endif
