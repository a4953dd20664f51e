/* kohaku serve MACHINE: upstream's simulated-card line protocol on stdin
 * and stdout (../shared/cli.md, docs/serve.md), so upstream's own
 * VerilatorTransport drives kohaku in place of its Verilator card build.
 * Built on the stable host API (kohaku/api.h) like any host program. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "kohaku/api.h"
#include "kohaku/echo.h"
#include "kohaku/hex.h"

#define SERVE_MAX_PARAMS 64
#define SERVE_MAX_BLOCK (1u << 20) /* bytes one RB may ask for */
/* The longest line read: a WB of SERVE_MAX_BLOCK bytes and its address.
 * A longer one is skipped to its newline and refused, not stored. */
#define SERVE_MAX_LINE (2 * SERVE_MAX_BLOCK + 64)
#define SERVE_SYS_PS 3334          /* the harness's sysnode period in ps (S: ps=) */

typedef struct serve {
    kh_dev *d;
    FILE *out;
    int card_map;     /* 1: the Verilator card's memory windows at (N+1) << 32 */
    uint64_t refused; /* accesses answered E (S: decerr=) */
    unsigned diags;   /* diagnostics already written to the log (stderr) */
} serve;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kohaku serve MACHINE [--settle N] [--host-map card|kohaku|noboard] [--strict] [--profile P]\n"
            "                    [--param NAME=VALUE]... [--engine cycle|fast]\n"
            "  Speaks upstream's simulated-card line protocol (docs/serve.md) on stdin/stdout:\n"
            "  READY once built; W addr data, R addr, WB addr hex, RB addr n, BR ch word, BW ch word hex,\n"
            "  T cycles, S, Q; replies OK, V ..., E message; every number hex without 0x.\n"
            "  MACHINE: a map picture, a machine file or 'default'.\n"
            "  --settle N      run N cycles before READY (the card harness's reset settle)\n"
            "  --host-map M    card (default): memory windows of mesh N at (N+1) << 32, as the card\n"
            "                  harness; kohaku: the simulator's own map, (N+1) << 40 (control.md §9.2);\n"
            "                  noboard: what upstream's Card() assumes without a board file (control windows\n"
            "                  0x4_0080_0000 + N*0x1_0000, mesh N's DRAM at N << 36); without the option, a\n"
            "                  machine whose host_map is noboard (--profile upstream-7703ee8) is served so\n"
            "  --strict        a diagnostic of the run (docs/diagnostics.md) makes the exit status 1\n"
            "                  (as --param strict=1)\n"
            "  --profile P, --param NAME=VALUE: machine parameters (kohaku params)\n"
            "  --engine E      cycle: the per-cycle reference engine; fast (default): the event engine\n"
            "A diagnostic is written once to standard error (upstream's transport keeps it in model.log).\n"
            "Exit status: 0 after Q or the end of input; 1 the machine or an option's value was refused\n"
            "(the reason also as one E line), or --strict and a diagnostic; 2 usage.\n");
}

/* One hex number, the whole word. */
static int hexnum(const char *s, uint64_t *v)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 16);
    if (errno || *end || *s == '-' || *s == '+') return -1;
    *v = x;
    return 0;
}

/* The card harness's memory windows, (N+1) << 32 with N < 4, to kohaku's
 * canonical (N+1) << 40 + N << 36 (control.md §9.2); everything below 4 GiB
 * (command and control windows) is the same in both maps. */
static int to_kohaku(const serve *s, uint64_t addr, size_t n, uint64_t *out)
{
    *out = addr;
    if (!s->card_map || addr < (UINT64_C(1) << 32)) return 0;
    uint64_t w = addr >> 32;
    if (w < 1 || w > 4) return -1;
    uint64_t off = addr & 0xFFFFFFFFu;
    if (n && off + n > (UINT64_C(1) << 32)) return -1;
    *out = (w << 40) + ((w - 1) << 36) + off;
    return 0;
}

/* arg is what the user typed: quoted cut (kh_echo) */
static void reply_err(serve *s, const char *fmt, const char *arg)
{
    kh_echo_buf eb;
    s->refused++;
    fprintf(s->out, "E ");
    fprintf(s->out, fmt, kh_echo(arg, &eb));
    fprintf(s->out, "\n");
}

/* typed: the card-map address the user wrote when it was translated to
 * kohaku's (the library's message names kohaku's), else NULL */
static void reply_dev_at(serve *s, int rc, const char *typed)
{
    if (rc) {
        /* one line: the message's newlines become "; " */
        const char *m = kh_dev_message(s->d);
        kh_echo_buf eb;
        s->refused++;
        fputs("E ", s->out);
        if (typed) fprintf(s->out, "card address %s: ", kh_echo(typed, &eb));
        for (; *m; m++) fputc(*m == '\n' ? ';' : *m, s->out);
        fputc('\n', s->out);
    } else {
        fputs("OK\n", s->out);
    }
}

static void reply_dev(serve *s, int rc) { reply_dev_at(s, rc, NULL); }

static void put_hex_bytes(FILE *f, const uint8_t *b, size_t n)
{
    static const char dig[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        fputc(dig[b[i] >> 4], f);
        fputc(dig[b[i] & 15], f);
    }
}

static int get_hex_bytes(const char *h, uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(h + 2 * i, "%2x", &v) != 1) return -1;
        b[i] = (uint8_t)v;
    }
    return 0;
}

static int all_hex(const char *h)
{
    for (; *h; h++)
        if (!strchr("0123456789abcdefABCDEF", *h)) return 0;
    return 1;
}

static void cmd_rw(serve *s, char **t, int nt)
{
    uint64_t a, v, ka;
    if (t[0][0] == 'R' && nt == 2 && !hexnum(t[1], &a)) {
        if (to_kohaku(s, a, 8, &ka)) return reply_err(s, "address %s is outside the card's windows", t[1]);
        int rc = kh_dev_read64(s->d, ka, &v);
        if (rc) return reply_dev_at(s, rc, ka != a ? t[1] : NULL);
        fprintf(s->out, "V %016" PRIx64 "\n", v);
        return;
    }
    if (t[0][0] == 'W' && nt == 3 && !hexnum(t[1], &a) && !hexnum(t[2], &v)) {
        if (to_kohaku(s, a, 8, &ka)) return reply_err(s, "address %s is outside the card's windows", t[1]);
        return reply_dev_at(s, kh_dev_write64(s->d, ka, v), ka != a ? t[1] : NULL);
    }
    reply_err(s, "usage: %s", t[0][0] == 'R' ? "R addr" : "W addr data");
}

static void cmd_block(serve *s, char **t, int nt)
{
    uint64_t a, n, ka;
    int read = t[0][0] == 'R';
    if (nt != 3 || hexnum(t[1], &a)) return reply_err(s, "usage: %s", read ? "RB addr nbytes" : "WB addr hexbytes");
    if (read ? hexnum(t[2], &n) : !all_hex(t[2]) || strlen(t[2]) % 2)
        return reply_err(s, "%s", read ? "nbytes is not a hex number" : "the data is not whole hex bytes");
    if (!read) n = strlen(t[2]) / 2;
    if (n > SERVE_MAX_BLOCK) return reply_err(s, "a block of more than 1 MiB (nbytes %s) is refused", t[2]);
    if (to_kohaku(s, a, (size_t)n, &ka)) return reply_err(s, "address %s is outside the card's windows", t[1]);
    uint8_t *b = malloc(n ? n : 1);
    if (!b) return reply_err(s, "%s", "out of memory");
    int rc;
    if (read) {
        rc = kh_dev_read_block(s->d, ka, b, n);
        if (!rc) {
            fputs("V ", s->out);
            put_hex_bytes(s->out, b, n);
            fputc('\n', s->out);
        }
    } else {
        get_hex_bytes(t[2], b, n);
        rc = kh_dev_write_block(s->d, ka, b, n);
    }
    if (rc || !read) reply_dev_at(s, rc, ka != a ? t[1] : NULL);
    free(b);
}

/* BR ch word / BW ch word hex: one 512-bit DRAM word of mesh ch at byte
 * offset 64 * word, no host time; the hex is the word as one number, most
 * significant digit first (byte 0 of the word is its last two digits). */
static void cmd_backdoor(serve *s, char **t, int nt)
{
    uint64_t ch, w;
    int read = t[0][1] == 'R';
    if (nt != (read ? 3 : 4) || hexnum(t[1], &ch) || hexnum(t[2], &w) || ch > 3 || w > (UINT64_MAX >> 6))
        return reply_err(s, "usage: %s", read ? "BR ch word" : "BW ch word hex128");
    uint8_t b[64];
    if (read) {
        int rc = kh_dev_dram_read(s->d, (unsigned)ch, w * 64, b, 64);
        if (rc) return reply_dev(s, rc);
        fputs("V ", s->out);
        for (int i = 63; i >= 0; i--) fprintf(s->out, "%02x", b[i]);
        fputc('\n', s->out);
        return;
    }
    if (strlen(t[3]) != 128 || !all_hex(t[3])) return reply_err(s, "%s", "BW: the word is 128 hex digits");
    uint8_t msb[64];
    get_hex_bytes(t[3], msb, 64);
    for (int i = 0; i < 64; i++) b[i] = msb[63 - i];
    reply_dev(s, kh_dev_dram_write(s->d, (unsigned)ch, w * 64, b, 64));
}

static void cmd_status(serve *s)
{
    uint64_t c = kh_dev_cycles(s->d);
    unsigned live = (1u << kh_dev_meshes(s->d)) - 1;
    /* sys: mesh cycles; ctrl: the 100 MHz control clock, a third of them;
     * decerr: accesses answered E; every mesh's reset released and locked */
    fprintf(s->out, "V sys=%" PRIx64 " ctrl=%" PRIx64 " decerr=%08" PRIx64 " sys_rstn=%x locked=%x ps=%" PRIx64 "\n", c,
            c / 3, s->refused & 0xFFFFFFFFu, live, live, c * SERVE_SYS_PS);
}

enum { LINE_OK, LINE_END, LINE_LONG, LINE_NUL };

/* One line into buf (SERVE_MAX_LINE bytes and a 0; the newline dropped).
 * A line too long or holding a NUL byte is read to its end and dropped:
 * memory stays bounded and a NUL cannot cut a command short. */
static int read_line(FILE *in, char *buf)
{
    size_t n = 0;
    int c, nul = 0;
    while ((c = getc(in)) != EOF && c != '\n') {
        if (!c) nul = 1;
        if (n < SERVE_MAX_LINE) buf[n] = (char)c;
        if (n <= SERVE_MAX_LINE) n++;
    }
    if (c == EOF && !n) return LINE_END;
    if (n > SERVE_MAX_LINE) return LINE_LONG;
    buf[n] = 0;
    return nul ? LINE_NUL : LINE_OK;
}

static void dispatch(serve *s, char **t, int nt)
{
    const char *c = t[0];
    uint64_t n;
    if (!strcmp(c, "R") || !strcmp(c, "W")) return cmd_rw(s, t, nt);
    if (!strcmp(c, "RB") || !strcmp(c, "WB")) return cmd_block(s, t, nt);
    if (!strcmp(c, "BR") || !strcmp(c, "BW")) return cmd_backdoor(s, t, nt);
    if (!strcmp(c, "T")) {
        if (nt != 2 || hexnum(t[1], &n)) return reply_err(s, "usage: %s", "T cycles");
        return reply_dev(s, kh_dev_run(s->d, n));
    }
    if (!strcmp(c, "S")) return cmd_status(s);
    /* the Verilator model's public arrays have no counterpart here */
    if (!strcmp(c, "SC") || !strcmp(c, "PK") || !strcmp(c, "PE")) {
        fputs("E unsupported\n", s->out);
        return;
    }
    reply_err(s, "unknown command '%s'", c);
}

/* A diagnostic raised since the last look: once, on the log (stderr). */
static void log_news(serve *s)
{
    while (s->diags < kh_dev_diag_count(s->d)) {
        const char *name, *msg;
        uint64_t count;
        if (kh_dev_diag(s->d, s->diags++, &name, &count, &msg)) break;
        fprintf(stderr, "kohaku serve: warning (%s): %s\n", name, msg);
        fflush(stderr);
    }
}

/* Answer in's lines until Q or the end of input (fuzz/fuzz_serve.c runs
 * this on any bytes). 0, or 1 out of memory. */
static int serve_lines(serve *s, FILE *in)
{
    char *line = malloc(SERVE_MAX_LINE + 1);
    if (!line) return 1;
    int got;
    while ((got = read_line(in, line)) != LINE_END) {
        if (got != LINE_OK) {
            reply_err(s, "%s", got == LINE_LONG ? "a line of more than 2 MiB is refused" : "a line with a NUL byte is refused");
            fflush(s->out);
            continue;
        }
        char *t[6];
        int nt = 0;
        for (char *p = strtok(line, " \t\r\n"); p && nt < 6; p = strtok(NULL, " \t\r\n")) t[nt++] = p;
        if (!nt) continue;
        if (!strcmp(t[0], "Q")) break;
        dispatch(s, t, nt);
        fflush(s->out);
        log_news(s);
    }
    free(line);
    return 0;
}

int kh_cmd_serve(int argc, char **argv)
{
    const char *machine = NULL, *profile = NULL, *engine = NULL;
    const char *params[SERVE_MAX_PARAMS + 1]; /* and the host_map --host-map implies */
    size_t np = 0;
    uint64_t settle = 0;
    int have_settle = 0, have_map = 0, strict = 0, noboard = 0;
    kh_echo_buf eb;
    serve s = {.out = stdout, .card_map = 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if ((!strcmp(a, "--settle") || !strcmp(a, "--host-map")) && i + 1 < argc) {
            int *seen = a[2] == 's' ? &have_settle : &have_map;
            if ((*seen)++) {
                fprintf(stderr, "kohaku serve: %s given twice\n", a);
                return 2;
            }
            const char *v = argv[++i];
            if (a[2] == 's') {
                if (kh_parse_u64(v, &settle)) { /* a leading 0 is not octal */
                    fprintf(stderr, "kohaku serve: --settle '%s' is not a cycle count (a decimal or 0x number)\n",
                            kh_echo(v, &eb));
                    return 1;
                }
            } else if (!strcmp(v, "card") || !strcmp(v, "kohaku") || !strcmp(v, "noboard")) {
                s.card_map = !strcmp(v, "card");
                noboard = !strcmp(v, "noboard");
            } else {
                fprintf(stderr, "kohaku serve: --host-map '%s' is not card, kohaku or noboard\n", kh_echo(v, &eb));
                return 1;
            }
        } else if (!strcmp(a, "--strict")) {
            strict = 1;
        } else if (!strcmp(a, "--profile") && i + 1 < argc) {
            profile = argv[++i];
        } else if (!strcmp(a, "--engine") && i + 1 < argc) {
            engine = argv[++i];
        } else if (!strcmp(a, "--param") && i + 1 < argc) {
            if (np == SERVE_MAX_PARAMS) {
                fprintf(stderr, "kohaku serve: more than %d --param\n", SERVE_MAX_PARAMS);
                return 2;
            }
            params[np++] = argv[++i];
        } else if (a[0] == '-' || machine) {
            fprintf(stderr, "kohaku serve: unexpected '%s'\n", kh_echo(a, &eb));
            usage(stderr);
            return 2;
        } else {
            machine = a;
        }
    }
    if (!machine) {
        usage(stderr);
        return 2;
    }
    /* --host-map decides the library's host_map too (last, over a profile's):
     * noboard is the library's translation, card and kohaku are kohaku's map
     * below serve's own */
    if (have_map) params[np++] = noboard ? "host_map=1" : "host_map=0";
    char err[4096];
    int rc = kh_dev_open(&s.d, machine, profile, params, np, err, sizeof err);
    if (rc) {
        /* the transport reads one line: say why in the protocol too */
        printf("E %s\n", err);
        fprintf(stderr, "kohaku serve: %s\n", err);
        return 1;
    }
    if (engine && kh_dev_set_engine(s.d, engine)) {
        printf("E --engine: %s\n", kh_dev_message(s.d));
        fprintf(stderr, "kohaku serve: --engine: %s\n", kh_dev_message(s.d));
        kh_dev_close(s.d);
        return 1;
    }
    uint64_t v = 0;
    if (!have_map && !kh_dev_param(s.d, "host_map", &v) && v) s.card_map = 0; /* the machine's own: noboard */
    if (!kh_dev_param(s.d, "strict", &v) && v) strict = 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (kh_dev_run(s.d, settle)) {
        printf("E --settle: %s\n", kh_dev_message(s.d));
        fprintf(stderr, "kohaku serve: --settle: %s\n", kh_dev_message(s.d));
        kh_dev_close(s.d);
        return 1;
    }
    fprintf(s.out, "READY sys_cycles=%" PRIx64 " sys_rstn=%x\n", kh_dev_cycles(s.d),
            (1u << kh_dev_meshes(s.d)) - 1);
    int no_memory = serve_lines(&s, stdin);
    if (no_memory) fprintf(stderr, "kohaku serve: out of memory\n");
    log_news(&s);
    int failed = strict && kh_dev_diag_count(s.d);
    if (failed) fprintf(stderr, "kohaku serve: --strict: %u diagnostic%s, exit status 1\n", kh_dev_diag_count(s.d),
                        kh_dev_diag_count(s.d) == 1 ? "" : "s");
    kh_dev_close(s.d);
    return no_memory || failed;
}
