/* kohaku demo: the interim default demo (what `make run` runs) until the
 * simulator can run a GEMM end to end. It writes the tiled GEMM program of
 * cluster.md §9.3 for one output tile, assembles it with the table engine,
 * disassembles it, checks asm(dis(w)) == w, validates every word against the
 * table, and stages each word as the CU_INST flit the orchestrator would
 * dispatch, running the per-flit checks of flits.md §9 on it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "isa_util.h"
#include "kohaku/flit.h"
#include "kohaku/flitcheck.h"
#include "kohaku/gen/cluster.h"
#include "kohaku/gen/flit.h"
#include "kohaku/hex.h"

/* Operand and result images, placed as in the recorded cluster programs. */
#define A_IMG 0x000000u  /* MXFP7 A image (cluster.md §9.1) */
#define B_IMG 0x040000u  /* MXFP7 B image */
#define C_IMG 0x100000u  /* result image (cluster.md §9.4) */
#define CLUSTER_X 2      /* the cluster's coordinate */
#define CLUSTER_Y 1
#define ORCH_X 0         /* the orchestrator = memory port 0 */
#define ORCH_Y 1

static void help(FILE *out)
{
    fprintf(out,
            "usage: kohaku demo [--quiet]\n\n"
            "The interim default demo: builds the tiled GEMM program of cluster.md §9.3 for one\n"
            "output tile (two K chunks, gm = gn = 1, two K blocks per chunk), assembles it,\n"
            "disassembles it, checks that the disassembly assembles back to the same words,\n"
            "validates every word against isa/cluster.isa and runs the checks of flits.md §9 on\n"
            "the CU_INST flits the orchestrator would dispatch. Exit 0 when all of it holds.\n");
}

/* cluster.md §9.3 with ti = tj = 0, GJ = 1. */
static void program(char *out, size_t outlen, unsigned ch, unsigned gm, unsigned gn, unsigned bc)
{
    size_t k = 0;
    k += (size_t)snprintf(out + k, outlen - k, "# cluster.md 9.3: one output tile, %u K chunks\n", ch);
    for (unsigned c = 0; c < ch && k < outlen; c++) {
        unsigned bank = c % 2;
        k += (size_t)snprintf(out + k, outlen - k,
                              "FILL sel=a addr=0x%x n=%u eoff=0 fbank=%u\n"
                              "FILL sel=b addr=0x%x n=%u eoff=0 fbank=%u\n"
                              "GEMM gm=%u gn=%u nk=%u acc=%u aoff=0 boff=0 abank=%u bbank=%u anchor=40\n",
                              A_IMG + 128 * (c * gm * bc), gm * bc, bank, B_IMG + 128 * (c * gn * bc), gn * bc,
                              bank, gm, gn, bc, c > 0, bank, bank);
    }
    if (k < outlen) snprintf(out + k, outlen - k, "DRAIN addr=0x%x n=%u\n", C_IMG, gm * gn);
}

static void print_issue(void *ctx, const kh_flitcheck_issue *is)
{
    int *n = ctx;
    if (!is->warn) (*n)++;
    fprintf(stderr, "kohaku demo: %s: %s\n", is->warn ? "warning" : "check failed", is->msg);
}

int kh_cmd_demo(int argc, char **argv)
{
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--quiet")) {
            quiet = 1;
        } else {
            help(stderr);
            return 2;
        }
    }
    kh_isa *isa = cli_open_isa("demo");
    if (!isa) return 1;
    const kh_isa_layout *l = kh_isa_find_unit(isa, "cluster");
    char text[4096], hex[KH_FLIT_BITS / 4 + 1];
    program(text, sizeof text, 2, 1, 1, 2);
    cli_report r = {"demo", "program", 0, 0};
    uint64_t *w = NULL, *back = NULL;
    size_t n = 0, nb = 0;
    int failed = 0;
    if (!quiet) printf("== program (cluster.md §9.3)\n%s", text);
    if (kh_isa_asm_text(l, text, &w, &n, cli_report_fn, &r) || r.warnings) failed = 1;
    char *dis = failed ? NULL : kh_isa_dis_text(l, w, n);
    if (!quiet && dis) {
        printf("\n== words and their disassembly\n");
        const char *p = dis;
        for (size_t i = 0; i < n; i++) {
            const char *nl = strchr(p, '\n');
            kh_hex_format(w + 4 * i, 256, hex);
            printf("%s  %.*s\n", hex, (int)(nl - p), p);
            p = nl + 1;
        }
    }
    /* asm(dis(w)) == w */
    int round_trip = dis && !kh_isa_asm_text(l, dis, &back, &nb, cli_report_fn, &r) && nb == n &&
                     !memcmp(back, w, n * 4 * sizeof *w);
    if (!round_trip) failed = 1;
    /* every word keeps its table's rules; every staged flit keeps flits.md §9 */
    int table_errors = 0, flit_errors = 0;
    kh_flitcheck_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.origin = KH_ORIGIN_DISPATCH;
    ctx.nports = 1, ctx.port_x[0] = ORCH_X, ctx.port_y[0] = ORCH_Y;
    ctx.dest = KH_DEST_UNIT;
    if (!quiet && !failed) printf("\n== CU_INST flits as dispatched to (%u,%u), txn 0x01\n", CLUSTER_X, CLUSTER_Y);
    for (size_t i = 0; i < n && !failed; i++) {
        table_errors += kh_isa_validate(l, w + 4 * i, cli_report_fn, &r);
        kh_flit f;
        kh_flit_clear(&f);
        kh_cu_inst_set_payload(f.w, w + 4 * i);
        kh_hdr_set_dst_x(f.w, CLUSTER_X), kh_hdr_set_dst_y(f.w, CLUSTER_Y);
        kh_hdr_set_src_x(f.w, ORCH_X), kh_hdr_set_src_y(f.w, ORCH_Y);
        kh_hdr_set_type(f.w, KH_HDR_TYPE_CU_INST);
        kh_hdr_set_txn(f.w, 0x01);
        kh_hdr_set_last(f.w, i + 1 == n); /* the DRAIN ends the program (cluster.md §9.3) */
        kh_flitcheck(&f, &ctx, print_issue, &flit_errors);
        kh_hex_format(f.w, KH_FLIT_BITS, hex);
        if (!quiet) printf("%s\n", hex);
    }
    if (table_errors || flit_errors) failed = 1;
    unsigned count[4] = {0};
    for (size_t i = 0; i < n; i++) count[kh_cluster_op(w + 4 * i) & 3]++;
    printf("\ndemo: %zu instructions (%u FILL, %u GEMM, %u DRAIN); round trip %s; "
           "table checks %s; flit checks %s\n",
           n, count[KH_CLUSTER_OP_FILL], count[KH_CLUSTER_OP_GEMM], count[KH_CLUSTER_OP_DRAIN],
           round_trip ? "ok" : "FAILED", table_errors ? "FAILED" : "ok", flit_errors ? "FAILED" : "ok");
    free(dis);
    free(back);
    free(w);
    kh_isa_free(isa);
    return failed ? 1 : 0;
}
