/* kohaku flit encode TYPE field=value ... / flit decode HEX [--as TYPE]
 * (../shared/cli.md; flits.md). Fields go through the tables of
 * isa/flit.isa; decode runs the per-flit checks of flits.md §9. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "isa_util.h"
#include "kohaku/echo.h"
#include "kohaku/flit.h"
#include "kohaku/flitcheck.h"
#include "kohaku/hex.h"

static const char *const types[] = {"mem_rd_req", "mem_wr_req", "mem_wr_data", "mem_rd_resp",
                                    "mem_wr_ack", "cu_inst",    "cu_signal",   "cu_ctrl",
                                    "cu_ctrl_reply", "cu_data", "cu_data_data"};

static void help(FILE *out)
{
    fprintf(out,
            "usage: kohaku flit encode TYPE field=value ...\n"
            "       kohaku flit decode HEX [--as TYPE]\n\n"
            "TYPE: mem_rd_req mem_wr_req mem_wr_data mem_rd_resp mem_wr_ack cu_inst cu_signal\n"
            "      cu_ctrl (request) cu_ctrl_reply cu_data (descriptor) cu_data_data\n"
            "Header fields: dst_x dst_y src_x src_y txn last rsvd (type is implied by TYPE).\n"
            "Payload fields: see `kohaku isa TYPE`; pure data payloads have one field `data`\n"
            "(64 hex digits), CU_INST's is `payload`; addr is the whole 40-bit address.\n"
            "Values are decimal or 0x hex, or enum names.\n\n"
            "encode prints the flit as 72 hex digits (header first); a flit that breaks a check\n"
            "of flits.md §9 is still printed (for fault injection), the finding on standard error.\n"
            "decode takes 72 hex digits,\n"
            "picks the layout by the type code (0x7 decodes as a request and 0x8 as a descriptor\n"
            "unless --as names the other), prints type= and every field, and runs every check of\n"
            "flits.md §9 that one flit allows, naming the ones that need more context.\n\n"
            "Exit status: 0 ok, 1 input refused or (decode) a check failed (rule, field and\n"
            "value named), 2 usage.\n");
}

static const kh_isa_layout *payload_layout(const kh_isa *isa, const char *name)
{
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(types[i], name)) return kh_isa_find(isa, name);
    kh_echo_buf b;
    fprintf(stderr, "kohaku flit: unknown TYPE '%s'; types:", kh_echo(name, &b));
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) fprintf(stderr, " %s", types[i]);
    fprintf(stderr, "\n");
    return NULL;
}

/* A header field a user may write: inside flit[287:256], not a view. */
static int is_header_field(const kh_isa_layout *hdr, unsigned f)
{
    return !kh_isa_field_is_view(hdr, f) && kh_isa_field_msb(hdr, f) >= KH_PAYLOAD_BITS;
}

static void print_issue(void *ctx, const kh_flitcheck_issue *is)
{
    int *errors = ctx;
    if (!is->warn) (*errors)++;
    fprintf(stderr, "kohaku flit: %s: %s\n", is->warn ? "warning" : "check failed", is->msg);
}

static int encode(const kh_isa *isa, int argc, char **argv)
{
    const kh_isa_layout *hdr = kh_isa_find(isa, "hdr");
    const kh_isa_layout *pl = payload_layout(isa, argv[0]);
    if (!pl) return 1; /* an unknown TYPE is a refused value (docs/exit-status.md) */
    kh_flit f;
    kh_flit_clear(&f);
    kh_isa_set64(hdr, f.w, (unsigned)kh_isa_field_find(hdr, "type"), (uint64_t)kh_isa_layout_type(pl));
    unsigned char given_h[64] = {0}, given_p[64] = {0};
    for (int i = 1; i < argc; i++) {
        char name[64], err[400];
        const char *eq = strchr(argv[i], '=');
        if (!eq || eq == argv[i] || (size_t)(eq - argv[i]) >= sizeof name) {
            kh_echo_buf b;
            fprintf(stderr, "kohaku flit: '%s' is not field=value\n", kh_echo(argv[i], &b));
            return 2;
        }
        memcpy(name, argv[i], (size_t)(eq - argv[i]));
        name[eq - argv[i]] = '\0';
        if (!strcmp(name, "type")) {
            fprintf(stderr, "kohaku flit: type is implied by TYPE %s\n", argv[0]);
            return 1;
        }
        const kh_isa_layout *l = hdr;
        int fi = kh_isa_field_find(hdr, name);
        unsigned char *given = given_h;
        if (fi < 0 || !is_header_field(hdr, (unsigned)fi)) {
            l = pl;
            given = given_p;
            fi = kh_isa_field_find(pl, name);
            if (fi >= 0 && kh_isa_field_is_view(pl, (unsigned)fi)) fi = -1;
        }
        if (fi < 0 || fi >= 64) {
            fprintf(stderr, "kohaku flit: %s has no field '%s' (header: dst_x dst_y src_x src_y txn last rsvd; "
                    "payload: kohaku isa %s)\n", argv[0], name, argv[0]);
            return 1;
        }
        if (given[fi]) {
            fprintf(stderr, "kohaku flit: field %s is given twice\n", name);
            return 1;
        }
        given[fi] = 1;
        kh_isa_val v;
        if (kh_isa_parse_value(l, (unsigned)fi, eq + 1, &v, err, sizeof err)) {
            fprintf(stderr, "kohaku flit: %s %s\n", argv[0], err);
            return 1;
        }
        kh_isa_set(l, f.w, (unsigned)fi, &v);
    }
    /* Encoding a flit that breaks a rule is allowed (fault injection); say so. */
    kh_flitcheck_ctx ctx;
    int errors = 0;
    memset(&ctx, 0, sizeof ctx);
    ctx.ctrl = !strcmp(argv[0], "cu_ctrl_reply") ? KH_CTRL_REPLY : !strcmp(argv[0], "cu_ctrl") ? KH_CTRL_REQUEST : KH_CTRL_BY_OP;
    ctx.cu_data_data = !strcmp(argv[0], "cu_data_data");
    kh_flitcheck(&f, &ctx, print_issue, &errors);
    char hex[KH_FLIT_BITS / 4 + 1];
    kh_hex_format(f.w, KH_FLIT_BITS, hex);
    printf("%s\n", hex);
    return 0;
}

static void print_fields(const kh_isa_layout *l, const uint64_t *w, int header)
{
    for (unsigned f = 0; f < kh_isa_field_count(l); f++) {
        if (kh_isa_field_is_view(l, f)) continue;
        if (header && (!is_header_field(l, f) || !strcmp(kh_isa_field_name(l, f), "type"))) continue;
        kh_isa_val v;
        char val[96];
        kh_isa_get(l, w, f, &v);
        kh_isa_format_value(l, f, &v, val, sizeof val);
        printf("%s=%s\n", kh_isa_field_name(l, f), val);
    }
}

static int decode(const kh_isa *isa, const char *hex, const char *as)
{
    const kh_isa_layout *hdr = kh_isa_find(isa, "hdr");
    kh_flit f;
    char err[160];
    if (kh_hex_parse(hex, f.w, KH_FLIT_BITS, 1, err, sizeof err)) {
        fprintf(stderr, "kohaku flit: '%s' is not a flit: %s\n", hex, err);
        return 1;
    }
    unsigned type = (unsigned)kh_isa_get64(hdr, f.w, (unsigned)kh_isa_field_find(hdr, "type"));
    const kh_isa_layout *pl = NULL;
    if (as) {
        pl = payload_layout(isa, as);
        if (!pl) return 2;
        if ((unsigned)kh_isa_layout_type(pl) != type) {
            fprintf(stderr, "kohaku flit: --as %s needs type 0x%X; this flit has type=0x%X\n", as,
                    (unsigned)kh_isa_layout_type(pl), type);
            return 1;
        }
    } else {
        pl = kh_isa_find_type(isa, type);
    }
    printf("type=%s\n", pl ? kh_isa_layout_name(pl) : "unknown");
    print_fields(hdr, f.w, 1);
    if (pl) print_fields(pl, f.w, 0);
    else printf("payload=0x%016llx%016llx%016llx%016llx\n", (unsigned long long)f.w[3],
                (unsigned long long)f.w[2], (unsigned long long)f.w[1], (unsigned long long)f.w[0]);
    kh_flitcheck_ctx ctx;
    int errors = 0;
    char skipped[512];
    memset(&ctx, 0, sizeof ctx);
    if (as && !strcmp(as, "cu_ctrl_reply")) ctx.ctrl = KH_CTRL_REPLY;
    if (as && !strcmp(as, "cu_ctrl")) ctx.ctrl = KH_CTRL_REQUEST;
    ctx.cu_data_data = as && !strcmp(as, "cu_data_data");
    kh_flitcheck(&f, &ctx, print_issue, &errors);
    kh_flitcheck_skipped(&f, &ctx, skipped, sizeof skipped);
    printf("# checks of flits.md §9: %s; not checked without context: %s\n",
           errors ? "FAILED" : "passed", skipped);
    return errors ? 1 : 0;
}

int kh_cmd_flit(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        help(stdout);
        return 0;
    }
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return 0;
        }
    if (argc < 3 || (strcmp(argv[1], "encode") && strcmp(argv[1], "decode"))) {
        help(stderr);
        return 2;
    }
    const char *as = NULL, *hex = NULL;
    if (!strcmp(argv[1], "decode")) {
        for (int i = 2; i < argc; i++) {
            if (!strcmp(argv[i], "--as") && i + 1 < argc) as = argv[++i];
            else if (!strncmp(argv[i], "--as=", 5)) as = argv[i] + 5;
            else if (!hex && argv[i][0] != '-') hex = argv[i];
            else {
                help(stderr);
                return 2;
            }
        }
        if (!hex) {
            help(stderr);
            return 2;
        }
    }
    kh_isa *isa = cli_open_isa("flit");
    if (!isa) return 1;
    int rc = !strcmp(argv[1], "encode") ? encode(isa, argc - 2, argv + 2) : decode(isa, hex, as);
    kh_isa_free(isa);
    return rc;
}
