/* The table engine: every bit layout of kohaku, loaded from isa/ *.isa
 * (docs/isa-format.md), drives one encoder, decoder, validator, assembler,
 * disassembler and the generators (C header, Verilog decode, markdown).
 *
 * A kh_isa is a set of loaded tables; it owns its layouts and is immutable
 * once loaded, so any number of threads or simulations may share one. The
 * library embeds the texts of isa/ *.isa (kh_isa_open_builtin), so nothing
 * reads files at run time.
 *
 * Words are little-endian uint64_t arrays as in bits.h: bit i of a layout is
 * bit i % 64 of word i / 64 (a flit: five words, flit.h). A field value is
 * up to 256 bits (kh_isa_val, least significant word first).
 *
 * Errors: functions that can refuse return 0 / -1 and write a message
 * naming the thing, the value and the rule into err (errlen bytes). */
#ifndef KOHAKU_ISA_H
#define KOHAKU_ISA_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define KH_ISA_MAX_WIDTH 320       /* widest layout, bits */
#define KH_ISA_MAX_WORDS 5         /* ceil(320 / 64) */
#define KH_ISA_MAX_FIELD 256       /* widest field, bits */

typedef struct kh_isa kh_isa;
typedef struct kh_isa_layout kh_isa_layout;

typedef struct kh_isa_val {
    uint64_t w[4]; /* field value, least significant word first */
} kh_isa_val;

/* One table text (the build embeds every isa/ *.isa as one of these). */
typedef struct kh_isa_source {
    const char *name; /* table name: the file's stem, e.g. "cluster" */
    const char *path; /* e.g. "isa/cluster.isa" */
    const char *text;
} kh_isa_source;

/* Defined by the generated build/gen/isa_embed.c; ends with {NULL,NULL,NULL}. */
extern const kh_isa_source kh_isa_embedded[];

/* ---- loading ---- */
kh_isa *kh_isa_new(void);
void kh_isa_free(kh_isa *isa);
/* Parse one table text and add its layouts. On a refusal nothing is added
 * and err says "PATH:LINE: what, value, rule". */
int kh_isa_load(kh_isa *isa, const char *name, const char *path, const char *text,
                char *err, size_t errlen);
/* Read and load a file (name = the file's stem). */
int kh_isa_load_file(kh_isa *isa, const char *path, char *err, size_t errlen);
/* A new set holding every embedded table; NULL with a message on failure. */
kh_isa *kh_isa_open_builtin(char *err, size_t errlen);

/* ---- looking things up ---- */
unsigned kh_isa_count(const kh_isa *isa);
const kh_isa_layout *kh_isa_at(const kh_isa *isa, unsigned i); /* table order */
const kh_isa_layout *kh_isa_find(const kh_isa *isa, const char *layout_name);
const kh_isa_layout *kh_isa_find_unit(const kh_isa *isa, const char *unit);
/* The first payload layout (table order) with this header type code. */
const kh_isa_layout *kh_isa_find_type(const kh_isa *isa, unsigned type);
/* Names of the loaded tables (file stems), in load order. */
unsigned kh_isa_table_count(const kh_isa *isa);
const char *kh_isa_table_name(const kh_isa *isa, unsigned i);

const char *kh_isa_layout_name(const kh_isa_layout *l);
const char *kh_isa_layout_table(const kh_isa_layout *l); /* table name */
const char *kh_isa_layout_path(const kh_isa_layout *l);  /* e.g. isa/flit.isa */
const char *kh_isa_layout_doc(const kh_isa_layout *l);
const char *kh_isa_layout_unit(const kh_isa_layout *l);  /* NULL if not a unit ISA */
unsigned kh_isa_layout_width(const kh_isa_layout *l);
unsigned kh_isa_layout_words(const kh_isa_layout *l);    /* ceil(width / 64) */
int kh_isa_layout_type(const kh_isa_layout *l);          /* header type code, or -1 */

/* Fields, in table order (views included). */
unsigned kh_isa_field_count(const kh_isa_layout *l);
int kh_isa_field_find(const kh_isa_layout *l, const char *name); /* index or -1 */
const char *kh_isa_field_name(const kh_isa_layout *l, unsigned f);
unsigned kh_isa_field_width(const kh_isa_layout *l, unsigned f);
int kh_isa_field_is_view(const kh_isa_layout *l, unsigned f);
int kh_isa_field_is_signed(const kh_isa_layout *l, unsigned f);
/* Highest layout bit of the field's most significant part. */
unsigned kh_isa_field_msb(const kh_isa_layout *l, unsigned f);
/* The field's bit range as written in the table, e.g. "{[68:63],[251:218]}". */
void kh_isa_field_range(const kh_isa_layout *l, unsigned f, char *out, size_t outlen);

/* Opcodes (unit ISAs). */
unsigned kh_isa_op_count(const kh_isa_layout *l);
const char *kh_isa_op_name(const kh_isa_layout *l, unsigned i);
uint64_t kh_isa_op_value(const kh_isa_layout *l, unsigned i);
int kh_isa_op_find(const kh_isa_layout *l, const char *mnemonic); /* case-insensitive */

/* ---- encode / decode ---- */
/* Read field f of word w (ceil(width/64) words). */
void kh_isa_get(const kh_isa_layout *l, const uint64_t *w, unsigned f, kh_isa_val *v);
uint64_t kh_isa_get64(const kh_isa_layout *l, const uint64_t *w, unsigned f); /* low 64 bits */
/* Write field f (the value is masked to the field's width; views write the
 * bits they alias). */
void kh_isa_set(const kh_isa_layout *l, uint64_t *w, unsigned f, const kh_isa_val *v);
void kh_isa_set64(const kh_isa_layout *l, uint64_t *w, unsigned f, uint64_t v);
/* Parse a value for field f as the assembler does: decimal, 0x hex, a
 * negative decimal for a signed field, an enum name; a field wider than 64
 * bits takes hex with or without 0x. Refuses a value that does not fit. */
int kh_isa_parse_value(const kh_isa_layout *l, unsigned f, const char *text, kh_isa_val *v,
                       char *err, size_t errlen);
/* Format a value as the disassembler does (enum name, signed decimal, hex
 * or decimal by the field's display base). */
void kh_isa_format_value(const kh_isa_layout *l, unsigned f, const kh_isa_val *v, char *out,
                         size_t outlen);

/* ---- diagnostics ---- */
typedef enum kh_isa_sev { KH_ISA_WARN = 1, KH_ISA_ERROR = 2 } kh_isa_sev;
/* Receives each diagnostic; msg names the thing, the value and the rule. */
typedef void (*kh_isa_report_fn)(void *ctx, kh_isa_sev sev, const char *msg);

/* Table checks of one word: reserved fields zero, values within max=,
 * closed enums, lint fields zero (warning). Returns the number of errors. */
int kh_isa_validate(const kh_isa_layout *l, const uint64_t *w, kh_isa_report_fn report,
                    void *ctx);

/* ---- assembler / disassembler ---- */
/* Assemble one line ("MNEMONIC field=value ...", '#' comments; a blank line
 * gives 0 words). A layout without opcodes takes "NAME field=value ..." (its
 * layout name, which may be left out) and its disassembly prints that form. Writes up to 2 words of the layout's word count each into
 * out (out[0..words), then out[words..2*words) for an ext word) and their
 * number into *nout. Errors and warnings go to report, prefixed "line N: ".
 * Returns 0, or -1 after reporting an error. */
int kh_isa_asm_line(const kh_isa_layout *l, const char *line, unsigned lineno, uint64_t *out,
                    unsigned *nout, kh_isa_report_fn report, void *ctx);
/* Disassemble the word at w. next (may be NULL) is the following word, read
 * only by an opcode with an ext word. *used = words consumed (1 or 2). */
void kh_isa_dis_word(const kh_isa_layout *l, const uint64_t *w, const uint64_t *next,
                     unsigned *used, char *out, size_t outlen);

/* Assemble a whole program text (one instruction per line). The words
 * (kh_isa_layout_words() uint64_t each, an ext word counting as one) go to
 * a malloc'd array *out, their number to *nwords. Returns the number of
 * lines refused (each reported); *out is NULL when no word was made. */
int kh_isa_asm_text(const kh_isa_layout *l, const char *text, uint64_t **out, size_t *nwords,
                    kh_isa_report_fn report, void *ctx);
/* Disassemble n words into a malloc'd text, one instruction per line. */
char *kh_isa_dis_text(const kh_isa_layout *l, const uint64_t *w, size_t n);

/* ---- generators ---- */
/* Write the C header for every layout of table `table` (docs/isa-format.md). */
int kh_isa_emit_c_header(const kh_isa *isa, const char *table, FILE *out, char *err,
                         size_t errlen);
/* Verilog decode wires / markdown field tables of one table's layouts. */
int kh_isa_emit_verilog(const kh_isa *isa, const char *table, FILE *out, char *err,
                        size_t errlen);
int kh_isa_emit_markdown(const kh_isa *isa, const char *table, FILE *out, char *err,
                         size_t errlen);

#endif
