/* Map pictures (mesh.md §2): text -> grid size, endpoints, memory ports and
 * the unit-to-port binding. Parsing follows the upstream generator's order:
 * each token is checked as it is read (width, retired, known), then the
 * shape (rows, equal lengths, columns, limits), corners, `mag` placement and
 * count. Every message names the line, row y, column x, token and rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/bufcat.h"
#include "kohaku/file.h"
#include "kohaku/mesh.h"

#define GRID (KH_MAP_MAX_N + 2) /* rows/columns including the edge ring */

struct kh_map {
    unsigned nx, ny;
    unsigned nep;
    kh_map_ep ep[GRID * GRID];
    int16_t at[GRID][GRID]; /* index into ep, -1 for corners */
    unsigned nports;
    int16_t port[KH_MAP_MAX_PORTS];
};

/* The raw picture while it is read. */
typedef struct picture {
    unsigned nrows;
    unsigned len[GRID];
    char tok[GRID][GRID][4];
    unsigned line[GRID];
} picture;

const char *kh_ep_kind_name(kh_ep_kind k)
{
    switch (k) {
    case KH_EP_MEM: return "memory port";
    case KH_EP_UNIT: return "unit";
    default: return "none";
    }
}

/* A token for a message: printable ASCII kept, other bytes as \xNN, long
 * tokens cut (the text is user input, possibly binary). */
static const char *show(const char *s, size_t n, char *out, size_t outlen)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < outlen; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i == 12) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (c >= 0x20 && c < 0x7f) {
            out[o++] = (char)c;
        } else {
            snprintf(out + o, outlen - o, "\\x%02x", c);
            o += 4;
        }
    }
    out[o] = 0;
    return out;
}

static int is_empty_token(const char *t) { return !strcmp(t, "xxx") || !strcmp(t, "..."); }

static int is_tied_token(const char *t) { return is_empty_token(t) || !strcmp(t, "nul"); }

static int is_unit_token(const kh_map_units *u, const char *t)
{
    for (unsigned i = 0; u && i < u->n; i++)
        if (!strcmp(u->token[i], t)) return 1;
    return 0;
}

static void known_tokens(const kh_map_units *u, char *out, size_t len)
{
    size_t o = 0;
    if (len) out[0] = '\0';
    kh_bufcat(out, len, &o, "xxx ... nul mag");
    for (unsigned i = 0; u && i < u->n; i++) kh_bufcat(out, len, &o, " %s", u->token[i]);
}

/* Check one token as it is read (mesh.md §2 token rules). */
static int check_token(const char *s, size_t n, const kh_map_units *units, unsigned line, unsigned x, unsigned y,
                       char *err, size_t errlen)
{
    char shown[64];
    show(s, n, shown, sizeof shown);
    if (x == 0 && y == 0 && ((n == 7 && !memcmp(s, "machine", 7)) || (n == 4 && !memcmp(s, "mesh", 4)))) {
        snprintf(err, errlen,
                 "line %u: '%s' starts a machine file (docs/machine.md), not a map picture: this reads one "
                 "picture of 3-character tokens (mesh.md §2)",
                 line, shown);
        return -1;
    }
    if (n != 3) {
        snprintf(err, errlen,
                 "line %u, row y=%u, column x=%u: token '%s' is %zu characters; every token "
                 "is exactly 3 (mesh.md §2)",
                 line, y, x, shown, n);
        return -1;
    }
    char t[4] = {s[0], s[1], s[2], 0};
    if (!strcmp(t, "cpu")) {
        snprintf(err, errlen,
                 "line %u, row y=%u, column x=%u: token 'cpu' is retired: the control processor "
                 "is part of the system node and answers at (0,0); delete the token, keep the "
                 "grid (mesh.md §2)",
                 line, y, x);
        return -1;
    }
    if (!strcmp(t, "mgr") || !strcmp(t, "acu")) {
        snprintf(err, errlen,
                 "line %u, row y=%u, column x=%u: token '%s' is retired: it named one local of "
                 "the two-port cluster; a cluster is one 'mat' (mesh.md §2)",
                 line, y, x, t);
        return -1;
    }
    if (is_tied_token(t) || !strcmp(t, "mag") || is_unit_token(units, t)) return 0;
    char known[160];
    known_tokens(units, known, sizeof known);
    snprintf(err, errlen,
             "line %u, row y=%u, column x=%u: unknown token '%s'; known tokens are %s "
             "(mesh.md §2, unit registry)",
             line, y, x, shown, known);
    return -1;
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* Read the text into rows of tokens. */
static int read_picture(const char *text, const kh_map_units *units, picture *p, char *err, size_t errlen)
{
    unsigned lineno = 0;
    const char *s = text;
    memset(p, 0, sizeof *p);
    while (*s) {
        const char *eol = s;
        while (*eol && *eol != '\n') eol++;
        lineno++;
        /* strip the comment, then trailing blanks; skip a line left blank */
        const char *end = s;
        while (end < eol && *end != '#') end++;
        while (end > s && is_blank(end[-1])) end--;
        int blank = 1;
        for (const char *c = s; c < end; c++)
            if (!is_blank(*c)) blank = 0;
        if (!blank) {
            unsigned y = p->nrows, x = 0;
            const char *c = s;
            if (y >= GRID) {
                /* name the row's first token (a row of dashes has none) */
                const char *t = s, *te;
                while (t < end && (*t == ' ' || *t == '-')) t++;
                for (te = t; te < end && *te != ' ' && *te != '-'; te++) {}
                char shown[64];
                show(t, (size_t)(te - t), shown, sizeof shown);
                snprintf(err, errlen,
                         "line %u, row y=%u, column x=0: token '%s' makes NY = %u router rows; "
                         "at most %u (POS_WIDTH 4, mesh.md §1)",
                         lineno, y, shown, y - 1, KH_MAP_MAX_N);
                return -1;
            }
            while (c < end) {
                while (c < end && (*c == ' ' || *c == '-')) c++;
                if (c == end) break;
                const char *t = c;
                while (c < end && *c != ' ' && *c != '-') c++;
                if (check_token(t, (size_t)(c - t), units, lineno, x, y, err, errlen)) return -1;
                if (x >= GRID) {
                    snprintf(err, errlen,
                             "line %u, row y=%u, column x=%u: token '%.3s' makes NX = %u routers "
                             "per row; at most %u (POS_WIDTH 4, mesh.md §1)",
                             lineno, y, x, t, x - 1, KH_MAP_MAX_N);
                    return -1;
                }
                memcpy(p->tok[y][x], t, 3);
                x++;
            }
            /* a line of only dashes is a row with no tokens (upstream too) */
            p->len[y] = x;
            p->line[y] = lineno;
            p->nrows++;
        }
        s = *eol ? eol + 1 : eol;
    }
    return 0;
}

/* Shape rules: >= 3 rows, equal lengths, >= 3 columns (mesh.md §2). */
static int check_shape(const picture *p, char *err, size_t errlen)
{
    if (p->nrows < 3) {
        snprintf(err, errlen,
                 "row y=%u, column x=0: no token (the map has %u rows); a map needs at least 3 "
                 "rows: north edge, one router row, south edge (mesh.md §2)",
                 p->nrows, p->nrows);
        return -1;
    }
    for (unsigned y = 1; y < p->nrows; y++) {
        if (p->len[y] == p->len[0]) continue;
        unsigned x = p->len[y] < p->len[0] ? p->len[y] : p->len[0];
        char tok[8];
        if (p->len[y] > p->len[0])
            snprintf(tok, sizeof tok, "'%s'", p->tok[y][x]);
        else
            snprintf(tok, sizeof tok, "none");
        snprintf(err, errlen,
                 "line %u, row y=%u, column x=%u: token %s: row y=%u has %u tokens but row y=0 "
                 "has %u; all rows must be equally long (mesh.md §2)",
                 p->line[y], y, x, tok, y, p->len[y], p->len[0]);
        return -1;
    }
    if (p->len[0] < 3) {
        snprintf(err, errlen,
                 "line %u, row y=0, column x=%u: no token (rows have %u tokens); a map needs at "
                 "least 3 columns: west edge, one router column, east edge (mesh.md §2)",
                 p->line[0], p->len[0], p->len[0]);
        return -1;
    }
    return 0;
}

static unsigned clampu(unsigned v, unsigned hi) { return v < 1 ? 1 : v > hi ? hi : v; }

static unsigned absdiff(unsigned a, unsigned b) { return a > b ? a - b : b - a; }

/* Classify every position, number the memory ports and bind the units. */
static int classify(const picture *p, kh_map *m, char *err, size_t errlen)
{
    unsigned nx = p->len[0] - 2, ny = p->nrows - 2;
    m->nx = nx;
    m->ny = ny;
    for (unsigned y = 0; y < ny + 2; y++) {
        for (unsigned x = 0; x < nx + 2; x++) {
            const char *t = p->tok[y][x];
            int corner = (x == 0 || x == nx + 1) && (y == 0 || y == ny + 1);
            m->at[y][x] = -1;
            if (corner) {
                if (!is_empty_token(t)) {
                    snprintf(err, errlen,
                             "line %u, row y=%u, column x=%u: token '%s' in a corner; corners "
                             "touch no router and must be empty, 'xxx' or '...' (mesh.md §2)",
                             p->line[y], y, x, t);
                    return -1;
                }
                continue;
            }
            kh_map_ep *e = &m->ep[m->nep];
            memset(e, 0, sizeof *e);
            e->x = (uint8_t)x;
            e->y = (uint8_t)y;
            e->edge = x == 0 || y == 0 || x == nx + 1 || y == ny + 1;
            memcpy(e->token, t, 4);
            e->line = p->line[y];
            e->port = -1;
            e->bound_port = -1;
            if (!strcmp(t, "mag")) {
                if (!e->edge) {
                    snprintf(err, errlen,
                             "line %u, row y=%u, column x=%u: token 'mag' on a router's local "
                             "port; memory ports must sit on edge positions (mesh.md §2, Open "
                             "point 3)",
                             p->line[y], y, x);
                    return -1;
                }
                if (m->nports == KH_MAP_MAX_PORTS) {
                    snprintf(err, errlen,
                             "line %u, row y=%u, column x=%u: token 'mag' is memory port %u; a "
                             "node has at most %u memory ports (mesh.md §2)",
                             p->line[y], y, x, m->nports, KH_MAP_MAX_PORTS);
                    return -1;
                }
                e->kind = KH_EP_MEM;
                e->port = (int)m->nports;
                m->port[m->nports++] = (int16_t)m->nep;
            } else if (!is_tied_token(t)) {
                e->kind = KH_EP_UNIT;
            }
            m->at[y][x] = (int16_t)m->nep++;
        }
    }
    if (m->nports == 0) {
        snprintf(err, errlen,
                 "rows y=0..%u, columns x=0..%u: no 'mag' token; a map needs 1 to %u memory "
                 "ports (mesh.md §2)",
                 ny + 1, nx + 1, KH_MAP_MAX_PORTS);
        return -1;
    }
    for (unsigned i = 0; i < m->nep; i++) {
        kh_map_ep *u = &m->ep[i];
        if (u->kind != KH_EP_UNIT) continue;
        unsigned best = ~0u;
        for (unsigned k = 0; k < m->nports; k++) {
            const kh_map_ep *g = &m->ep[m->port[k]];
            unsigned d = absdiff(clampu(g->x, nx), clampu(u->x, nx)) +
                         absdiff(clampu(g->y, ny), clampu(u->y, ny));
            if (d < best) { /* strict: ties keep the lowest index */
                best = d;
                u->bound_port = (int)k;
            }
        }
    }
    return 0;
}

kh_map *kh_map_parse(const char *text, const kh_map_units *units, char *err, size_t errlen)
{
    picture *p = malloc(sizeof *p);
    kh_map *m = calloc(1, sizeof *m);
    if (!p || !m) {
        snprintf(err, errlen, "map: out of memory");
        goto fail;
    }
    if (read_picture(text, units, p, err, errlen) || check_shape(p, err, errlen) ||
        classify(p, m, err, errlen))
        goto fail;
    free(p);
    return m;
fail:
    free(p);
    free(m);
    return NULL;
}

kh_map *kh_map_load(const char *path, const kh_map_units *units, char *err, size_t errlen)
{
    char *buf = kh_file_read_text(path, err, errlen); /* a map is text (mesh.md §2) */
    if (!buf) return NULL;
    char msg[512];
    kh_map *m = kh_map_parse(buf, units, msg, sizeof msg);
    free(buf);
    if (!m) snprintf(err, errlen, "%s: %s", path, msg);
    return m;
}

void kh_map_free(kh_map *m) { free(m); }

unsigned kh_map_nx(const kh_map *m) { return m->nx; }
unsigned kh_map_ny(const kh_map *m) { return m->ny; }
unsigned kh_map_nendpoints(const kh_map *m) { return m->nep; }
unsigned kh_map_nports(const kh_map *m) { return m->nports; }

const kh_map_ep *kh_map_endpoint(const kh_map *m, unsigned i)
{
    return i < m->nep ? &m->ep[i] : NULL;
}

const kh_map_ep *kh_map_at(const kh_map *m, unsigned x, unsigned y)
{
    if (x > m->nx + 1 || y > m->ny + 1 || m->at[y][x] < 0) return NULL;
    return &m->ep[m->at[y][x]];
}

const kh_map_ep *kh_map_port(const kh_map *m, unsigned index)
{
    return index < m->nports ? &m->ep[m->port[index]] : NULL;
}
