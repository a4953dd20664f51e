/* What a machine is built from (docs/machine.md): a map picture, or a
 * machine file naming one to four maps in mesh-id order plus parameter
 * overrides. A machine file is told from a map by its first word,
 * `machine`, which is no map token. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/file.h"
#include "kohaku/machine.h"

#define MAX_PARAMS 64

struct kh_machine_spec {
    int is_file;
    unsigned n;
    char *map[KH_MACHINE_MAX_MESHES];      /* map text; NULL = the default map */
    char *map_name[KH_MACHINE_MAX_MESHES]; /* file name as written, or "default" */
    unsigned nparams;
    char *param[MAX_PARAMS];               /* "name=value" */
    unsigned param_line[MAX_PARAMS];
    char name[256];
};

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

void kh_machine_spec_free(kh_machine_spec *s)
{
    if (!s) return;
    for (unsigned i = 0; i < KH_MACHINE_MAX_MESHES; i++) {
        free(s->map[i]);
        free(s->map_name[i]);
    }
    for (unsigned i = 0; i < s->nparams; i++) free(s->param[i]);
    free(s);
}

/* The first word of the first line that is neither blank nor a comment. */
static int first_word_is(const char *text, const char *word)
{
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (*p == '#') {
            while (*p && *p != '\n') p++;
            continue;
        }
        break;
    }
    size_t n = strlen(word);
    return !strncmp(p, word, n) && (p[n] == 0 || isspace((unsigned char)p[n]) || p[n] == '#');
}

/* Split a line into words (comment stripped); returns the count. */
static unsigned split(char *line, char **tok, unsigned max)
{
    char *h = strchr(line, '#');
    if (h) *h = 0;
    unsigned n = 0;
    char *save = NULL; /* strtok_r: strtok keeps hidden state shared by every caller */
    for (char *p = strtok_r(line, " \t\r", &save); p && n < max; p = strtok_r(NULL, " \t\r", &save)) tok[n++] = p;
    return n;
}

static int add_mesh(kh_machine_spec *s, const char *file, const char *base_dir, unsigned line, char *err,
                    size_t errlen)
{
    if (s->n >= KH_MACHINE_MAX_MESHES) {
        snprintf(err, errlen, "%s:%u: a fifth mesh: a machine has at most %u meshes, ids 0..3 in a line "
                 "(control.md §7.1)", s->name, line, KH_MACHINE_MAX_MESHES);
        return -1;
    }
    unsigned i = s->n;
    s->map_name[i] = dup_str(file);
    if (!s->map_name[i]) goto oom;
    if (strcmp(file, "default")) {
        char path[1024], e2[512];
        if (file[0] == '/' || !base_dir || !base_dir[0]) snprintf(path, sizeof path, "%s", file);
        else snprintf(path, sizeof path, "%s/%s", base_dir, file);
        s->map[i] = kh_file_read_text(path, e2, sizeof e2); /* a NUL would end the picture unseen */
        if (!s->map[i]) {
            snprintf(err, errlen, "%s:%u: mesh %u: %s", s->name, line, i, e2);
            return -1;
        }
        if (first_word_is(s->map[i], "machine")) {
            snprintf(err, errlen, "%s:%u: mesh %u: '%s' is a machine file; a mesh line names a map picture "
                     "(docs/machine.md)", s->name, line, i, file);
            return -1;
        }
    }
    s->n++;
    return 0;
oom:
    snprintf(err, errlen, "out of memory reading %s", s->name);
    return -1;
}

static int parse_file(kh_machine_spec *s, const char *text, const char *base_dir, char *err, size_t errlen)
{
    const char *p = text;
    unsigned line = 0;
    int seen_header = 0;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char buf[1024], *tok[4];
        line++;
        if (len >= sizeof buf) {
            snprintf(err, errlen, "%s:%u: line longer than %zu characters", s->name, line, sizeof buf - 1);
            return -1;
        }
        memcpy(buf, p, len);
        buf[len] = 0;
        p = e ? e + 1 : p + len;
        unsigned n = split(buf, tok, 4);
        if (n == 0) continue;
        if (!seen_header) { /* first_word_is() said this is `machine` */
            if (n != 1) {
                snprintf(err, errlen, "%s:%u: the header line is the word 'machine' alone (docs/machine.md)",
                         s->name, line);
                return -1;
            }
            seen_header = 1;
            continue;
        }
        if (!strcmp(tok[0], "mesh")) {
            if (n != 2) {
                snprintf(err, errlen, "%s:%u: usage: mesh MAP (a map picture file, or 'default'; meshes in id "
                         "order, docs/machine.md)", s->name, line);
                return -1;
            }
            if (add_mesh(s, tok[1], base_dir, line, err, errlen)) return -1;
        } else if (!strcmp(tok[0], "param")) {
            if (n != 2 || !strchr(tok[1], '=')) {
                snprintf(err, errlen, "%s:%u: usage: param NAME=VALUE (kohaku params lists the names)", s->name,
                         line);
                return -1;
            }
            if (s->nparams >= MAX_PARAMS) {
                snprintf(err, errlen, "%s:%u: more than %u param lines", s->name, line, MAX_PARAMS);
                return -1;
            }
            s->param[s->nparams] = dup_str(tok[1]);
            if (!s->param[s->nparams]) {
                snprintf(err, errlen, "out of memory reading %s", s->name);
                return -1;
            }
            s->param_line[s->nparams++] = line;
        } else {
            snprintf(err, errlen, "%s:%u: unknown line '%s' (a machine file has 'mesh MAP' and "
                     "'param NAME=VALUE' lines, docs/machine.md)", s->name, line, tok[0]);
            return -1;
        }
    }
    if (s->n == 0) {
        snprintf(err, errlen, "%s: no mesh line: a machine has 1 to %u meshes (docs/machine.md)", s->name,
                 KH_MACHINE_MAX_MESHES);
        return -1;
    }
    return 0;
}

kh_machine_spec *kh_machine_spec_parse(const char *text, const char *name, const char *base_dir, char *err,
                                       size_t errlen)
{
    kh_machine_spec *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(s->name, sizeof s->name, "%s", name ? name : "machine");
    if (first_word_is(text, "machine")) {
        s->is_file = 1;
        if (parse_file(s, text, base_dir, err, errlen)) {
            kh_machine_spec_free(s);
            return NULL;
        }
        return s;
    }
    /* A machine file without its header line would otherwise be read as a
     * picture and blamed on its first token's length. */
    if (first_word_is(text, "mesh") || first_word_is(text, "param")) {
        snprintf(err, errlen, "%s: the first word is '%s', a machine-file line: a machine file begins with "
                 "the line 'machine' (docs/machine.md); a map picture with a token (mesh.md §2)", s->name,
                 first_word_is(text, "mesh") ? "mesh" : "param");
        kh_machine_spec_free(s);
        return NULL;
    }
    /* A map picture: one mesh, checked when the machine is built. */
    s->n = 1;
    s->map[0] = dup_str(text);
    s->map_name[0] = dup_str(s->name);
    if (!s->map[0] || !s->map_name[0]) {
        kh_machine_spec_free(s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    return s;
}

kh_machine_spec *kh_machine_spec_load(const char *path, char *err, size_t errlen)
{
    if (!strcmp(path, "default")) {
        kh_machine_spec *s = calloc(1, sizeof *s);
        if (!s) {
            snprintf(err, errlen, "out of memory");
            return NULL;
        }
        s->n = 1;
        s->map_name[0] = dup_str("default");
        snprintf(s->name, sizeof s->name, "default");
        return s;
    }
    char *text = kh_file_read_text(path, err, errlen); /* a NUL would end the text unseen */
    if (!text) return NULL;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else dir[0] = 0;
    kh_machine_spec *s = kh_machine_spec_parse(text, path, dir, err, errlen);
    free(text);
    return s;
}

int kh_machine_spec_is_file(const kh_machine_spec *s) { return s->is_file; }
unsigned kh_machine_spec_nmeshes(const kh_machine_spec *s) { return s->n; }
const char *kh_machine_spec_map(const kh_machine_spec *s, unsigned i) { return i < s->n ? s->map[i] : NULL; }
const char *kh_machine_spec_map_name(const kh_machine_spec *s, unsigned i)
{
    return i < s->n ? s->map_name[i] : NULL;
}

int kh_machine_spec_params(const kh_machine_spec *s, kh_params *p, char *err, size_t errlen)
{
    for (unsigned i = 0; i < s->nparams; i++) {
        char e2[512];
        if (kh_params_set_assign(p, s->param[i], e2, sizeof e2)) {
            snprintf(err, errlen, "%s:%u: %s", s->name, s->param_line[i], e2);
            return -1;
        }
    }
    return 0;
}
