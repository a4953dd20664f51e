/* replay quant: every case of a quant.jsonl-format file
 * (../shared/vectors/README.md) through transform occupant 1. Exact: `out`
 * for (`in`, `mode`); `words`, when present, must be `out` split in words. */
#include <stdio.h>
#include <string.h>

#include "kohaku/bits.h"
#include "kohaku/gen/mxfp7.h"
#include "kohaku/hex.h"
#include "kohaku/json.h"
#include "kohaku/num.h"
#include "replay/replay_int.h"

typedef struct quant_case {
    uint64_t in[32];
    uint64_t mode;
    uint64_t out[16];
} quant_case;

/* Read one case; -1 with the field and the problem in err. */
static int read_case(const kh_json_val *o, quant_case *c, char *err, size_t errlen)
{
    const char *in, *out;
    char why[160];
    if (kh_json_type_of(o) != KH_JSON_OBJECT) {
        snprintf(err, errlen, "the line is a JSON %s, not an object", kh_json_type_name(kh_json_type_of(o)));
        return -1;
    }
    if (kh_json_get_str(o, "in", &in, err, errlen) || kh_json_get_str(o, "out", &out, err, errlen) ||
        kh_json_get_u64(o, "mode", &c->mode, err, errlen))
        return -1;
    if (c->mode > 15) {
        snprintf(err, errlen, "field 'mode': %llu is not an XFORM_MODE (4 bits, memory.md §11.1)",
                 (unsigned long long)c->mode);
        return -1;
    }
    if (kh_hex_parse(in, c->in, 2048, 1, why, sizeof why)) {
        snprintf(err, errlen, "field 'in': %s (2048 bits)", why);
        return -1;
    }
    if (kh_hex_parse(out, c->out, 1024, 1, why, sizeof why)) {
        snprintf(err, errlen, "field 'out': %s (1024 bits)", why);
        return -1;
    }
    const kh_json_val *words = kh_json_get(o, "words");
    if (!words) return 0;
    if (kh_json_type_of(words) != KH_JSON_ARRAY || kh_json_len(words) != 4) {
        snprintf(err, errlen, "field 'words': not an array of 4 words");
        return -1;
    }
    for (unsigned w = 0; w < 4; w++) {
        uint64_t word[4];
        const char *s = kh_json_str(kh_json_at(words, w), NULL);
        if (!s || kh_hex_parse(s, word, 256, 1, why, sizeof why)) {
            snprintf(err, errlen, "field 'words'[%u]: %s", w, s ? why : "not a string");
            return -1;
        }
        if (memcmp(word, c->out + 4 * w, sizeof word)) {
            snprintf(err, errlen, "field 'words'[%u] disagrees with word %u of 'out'", w, w);
            return -1;
        }
    }
    return 0;
}

/* The first difference between two outputs, in the terms of numerics §2.2. */
static void first_difference(const uint64_t got[16], const uint64_t want[16], unsigned mode, char *msg, size_t len)
{
    for (unsigned w = 0; w < 4; w++) {
        const uint64_t *g = got + 4 * w, *x = want + 4 * w;
        for (unsigned o = 0; o < 32; o++) {
            unsigned lo = KH_MXFP7_WORD_S0_LO - KH_MXFP7_WORD_S0_WIDTH * o; /* isa/mxfp7.isa */
            uint64_t gv = kh_bits_get(g, lo, KH_MXFP7_WORD_S0_WIDTH), xv = kh_bits_get(x, lo, KH_MXFP7_WORD_S0_WIDTH);
            if (gv != xv) {
                unsigned lane = mode & 1 ? o % 4 : o / 8, k = mode & 1 ? 8 * w + o / 4 : 8 * w + o % 8;
                snprintf(msg, len, "word %u slot %u (lane %u, k %u, bits [%u:%u]): got 0x%02llx, want 0x%02llx", w, o,
                         lane, k, lo + 6, lo, (unsigned long long)gv, (unsigned long long)xv);
                return;
            }
        }
        for (unsigned lane = 0; lane < 4; lane++) {
            unsigned lo = KH_MXFP7_WORD_SCALE0_LO - KH_MXFP7_WORD_SCALE0_WIDTH * lane;
            uint64_t gv = kh_bits_get(g, lo, KH_MXFP7_WORD_SCALE0_WIDTH), xv = kh_bits_get(x, lo, KH_MXFP7_WORD_SCALE0_WIDTH);
            if (gv != xv) {
                snprintf(msg, len, "word %u scale of lane %u (bits [%u:%u]): got 0x%02llx, want 0x%02llx", w, lane,
                         lo + 7, lo, (unsigned long long)gv, (unsigned long long)xv);
                return;
            }
        }
    }
    snprintf(msg, len, "no difference");
}

/* Cases are numbered from 1 in file order (the file records no number). */
static void quant_name(kh_replay_case *c)
{
    snprintf(c->name, sizeof c->name, "%u", c->index + 1);
    snprintf(c->label, sizeof c->label, "%u (line %u)", c->index + 1, c->line);
}

static void quant_run(kh_replay *r, kh_replay_case *k)
{
    quant_case c;
    char err[256];
    if (read_case(k->root, &c, err, sizeof err)) {
        kh_replay_fail(k, "malformed: %s", err);
        return;
    }
    uint64_t got[16];
    kh_quant_entry(c.in, (unsigned)c.mode, got);
    if (memcmp(got, c.out, sizeof got)) {
        first_difference(got, c.out, (unsigned)c.mode, err, sizeof err);
        snprintf(k->label, sizeof k->label, "%s (line %u, mode %llu)", k->name, k->line, (unsigned long long)c.mode);
        kh_replay_fail(k, "out differs: %s", err);
    } else if (r->o->verbose) {
        fprintf(r->out, "case %s: ok\n", k->label);
    }
}

const kh_replay_kind kh_replay_quant = {.name = "quant", .name_case = quant_name, .run = quant_run};
