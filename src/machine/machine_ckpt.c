/* A whole machine in a checkpoint file (docs/checkpoint.md): the header
 * (magic, format version, hashes of this build's parameter table and of
 * the machine's description), the description itself (DESC: the maps and
 * every parameter), where a session stood (SESS), the machine's own state
 * (MACH), the kernel, links and components (src/sim/sim_ckpt.c), the host
 * card (CARD) and an END section. A restore builds a fresh machine from
 * DESC, loads the state over it and hands it out only when every section
 * was read whole: a refused file never leaves a half-restored machine. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/ckpt.h"
#include "machine/machine_int.h"

#define DESC_MAX_MAP (UINT64_C(1) << 20) /* bytes of one map text in a description */

/* The build's parameter table: every row's name and range, in order. */
static uint64_t params_hash(void)
{
    uint64_t h = KH_FNV_INIT;
    for (size_t i = 0; kh_params_row(i); i++) {
        const kh_param_info *r = kh_params_row(i);
        h = kh_fnv64(h, r->name, strlen(r->name) + 1);
        h = kh_fnv64(h, &r->min, sizeof r->min);
        h = kh_fnv64(h, &r->max, sizeof r->max);
    }
    return h;
}

/* ---- the description ---- */

typedef struct desc {
    unsigned nmeshes;
    uint8_t interlink;
    char *map[KH_MACHINE_MAX_MESHES]; /* NULL: the default map */
    kh_params p;
    /* the rows as the file names them (restore), for messages */
    size_t nrows;
    char (*row_name)[64];
    uint64_t *row_val;
} desc;

static void desc_free(desc *d)
{
    for (unsigned i = 0; i < KH_MACHINE_MAX_MESHES; i++) free(d->map[i]);
    free(d->row_name);
    free(d->row_val);
    memset(d, 0, sizeof *d);
}

/* The description's bytes, the same for the same machine. */
static void desc_write(kh_ck *ck, unsigned nmeshes, int interlink, char *const *maps, const kh_params *p)
{
    uint32_t n = nmeshes;
    uint8_t il = interlink ? 1 : 0;
    KH_CK(ck, n);
    KH_CK(ck, il);
    for (unsigned i = 0; i < nmeshes; i++) {
        uint8_t has = maps[i] != NULL;
        KH_CK(ck, has);
        if (!has) continue;
        uint64_t len = strlen(maps[i]);
        KH_CK(ck, len);
        kh_ck_bytes(ck, maps[i], len);
    }
    uint64_t rows = 0;
    while (kh_params_row(rows)) rows++;
    KH_CK(ck, rows);
    for (uint64_t i = 0; i < rows; i++) {
        const kh_param_info *r = kh_params_row(i);
        char name[64];
        snprintf(name, sizeof name, "%s", r->name);
        kh_ck_str(ck, name, sizeof name);
        uint64_t v = kh_param_get(p, r);
        KH_CK(ck, v);
    }
}

static const kh_param_info *row_named(const char *name)
{
    for (size_t i = 0; kh_params_row(i); i++)
        if (!strcmp(kh_params_row(i)->name, name)) return kh_params_row(i);
    return NULL;
}

/* Read DESC's payload into d (maps, rows; parameters from the defaults
 * with the file's rows this build knows). */
static int desc_read(kh_ck *ck, desc *d)
{
    memset(d, 0, sizeof *d);
    uint32_t n = 0;
    uint8_t il = 0;
    KH_CK(ck, n);
    KH_CK(ck, il);
    if (!kh_ck_failed(ck) && (n < 1 || n > KH_MACHINE_MAX_MESHES || il > 1))
        return kh_ck_fail(ck, "%s: %u meshes, interlink %u: not a machine description", kh_ck_where(ck), n, il);
    d->nmeshes = n;
    d->interlink = il;
    for (unsigned i = 0; i < n && !kh_ck_failed(ck); i++) {
        uint8_t has = 0;
        KH_CK(ck, has);
        if (!has) continue;
        uint32_t len = (uint32_t)kh_ck_count(ck, 0, kh_ck_left(ck) < DESC_MAX_MAP ? kh_ck_left(ck) : DESC_MAX_MAP,
                                             "a map's length");
        if (kh_ck_failed(ck)) break;
        d->map[i] = malloc((size_t)len + 1);
        if (!d->map[i]) return kh_ck_fail(ck, "out of memory reading the description");
        kh_ck_bytes(ck, d->map[i], len);
        d->map[i][len] = 0;
        if (strlen(d->map[i]) != len) return kh_ck_fail(ck, "%s: mesh %u's map holds a NUL byte", kh_ck_where(ck), i);
    }
    uint32_t rows = (uint32_t)kh_ck_count(ck, 0, 4096, "parameter rows");
    if (kh_ck_failed(ck)) return -1;
    d->row_name = calloc(rows ? rows : 1, sizeof *d->row_name);
    d->row_val = calloc(rows ? rows : 1, sizeof *d->row_val);
    if (!d->row_name || !d->row_val) return kh_ck_fail(ck, "out of memory reading the description");
    d->nrows = rows;
    kh_params_default(&d->p);
    for (uint32_t i = 0; i < rows && !kh_ck_failed(ck); i++) {
        kh_ck_str(ck, d->row_name[i], sizeof d->row_name[i]);
        KH_CK(ck, d->row_val[i]);
        const kh_param_info *r = row_named(d->row_name[i]);
        if (r) memcpy((char *)&d->p + r->offset, &d->row_val[i], sizeof(uint64_t));
    }
    return kh_ck_failed(ck) ? -1 : 0;
}

/* The parameter tables differ: name the first row one side lacks. */
static void params_differ(const desc *d, char *err, size_t errlen)
{
    for (size_t i = 0; i < d->nrows; i++)
        if (!row_named(d->row_name[i])) {
            snprintf(err, errlen, "the file was written by a build with another parameter set: its parameter "
                     "'%s' is not one of this build's (kohaku params)", d->row_name[i]);
            return;
        }
    for (size_t i = 0; kh_params_row(i); i++) {
        size_t k = 0;
        while (k < d->nrows && strcmp(d->row_name[k], kh_params_row(i)->name)) k++;
        if (k == d->nrows) {
            snprintf(err, errlen, "the file was written by a build with another parameter set: this build's "
                     "parameter '%s' is not in it", kh_params_row(i)->name);
            return;
        }
    }
    snprintf(err, errlen, "the file was written by a build with another parameter set (the same names, other "
             "ranges or order)");
}

/* Name what differs between the file's machine d and the machine `like`. */
static int machine_differs(const desc *d, const kh_machine *like, char *err, size_t errlen)
{
    if (d->nmeshes != like->nmeshes || d->interlink != (like->interlink ? 1 : 0)) {
        snprintf(err, errlen, "the file holds another machine: %u mesh%s%s, this one %u%s", d->nmeshes,
                 d->nmeshes == 1 ? "" : "es", d->interlink ? " with interlinks" : "", like->nmeshes,
                 like->interlink ? " with interlinks" : "");
        return 1;
    }
    for (unsigned i = 0; i < d->nmeshes; i++) {
        const char *a = d->map[i] ? d->map[i] : kh_machine_default_map();
        const char *b = like->map_text[i] ? like->map_text[i] : kh_machine_default_map();
        if (strcmp(a, b)) {
            unsigned line = 1;
            for (size_t k = 0; a[k] && a[k] == b[k]; k++) line += a[k] == '\n';
            snprintf(err, errlen, "the file holds another machine: mesh %u's map differs from line %u", i, line);
            return 1;
        }
    }
    const kh_params *p = kh_machine_params(like);
    for (size_t i = 0; kh_params_row(i); i++) {
        const kh_param_info *r = kh_params_row(i);
        uint64_t a = kh_param_get(&d->p, r), b = kh_param_get(p, r);
        if (a != b) {
            snprintf(err, errlen, "the file holds another machine: parameter %s is %llu in the file, %llu here",
                     r->name, (unsigned long long)a, (unsigned long long)b);
            return 1;
        }
    }
    return 0;
}

/* ---- the machine's own state ---- */

/* The engine is not in the file: a run choice (KOHAKU_ENGINE, --engine)
 * with the same results either way, so a restore runs on this process's. */
static void mach_state(kh_machine *m, kh_ck *ck)
{
    kh_ck_str(ck, m->check_error, sizeof m->check_error);
    kh_ck_str(ck, m->shared_error, sizeof m->shared_error);
}

static void section(kh_ck *ck, const char *tag, const char *name, void (*fn)(kh_machine *, kh_ck *), kh_machine *m)
{
    if (kh_ck_loading(ck)) {
        if (kh_ck_section_open(ck, tag, name, NULL, 0)) return;
        fn(m, ck);
        kh_ck_section_close(ck);
    } else {
        kh_ck_section_begin(ck, tag, name);
        fn(m, ck);
        kh_ck_section_end(ck);
    }
}

static void card_state(kh_machine *m, kh_ck *ck) { kh_card_ckpt(m->card, ck); }

/* The live flit checker's stream state, and what its reporter has logged. */
static void check_state(kh_machine *m, kh_ck *ck)
{
    KH_CK_ARR(ck, m->check_logged, sizeof m->check_logged / sizeof m->check_logged[0]);
    kh_check_ckpt(m->check, ck);
}

static void sess_state(kh_ck *ck, kh_ckpt_info *info)
{
    KH_CK(ck, info->session_cmd);
    KH_CK(ck, info->session_line);
    kh_ck_str(ck, info->session_name, sizeof info->session_name);
}

/* ---- save ---- */

static void header(kh_ck *ck, uint64_t *phash, uint64_t *mhash)
{
    char magic[8];
    memcpy(magic, KH_CK_MAGIC, 8);
    uint32_t version = KH_CK_VERSION, flags = 0;
    kh_ck_bytes(ck, magic, 8);
    KH_CK(ck, version);
    KH_CK(ck, flags);
    KH_CK(ck, *phash);
    KH_CK(ck, *mhash);
}

static int save_bytes(kh_machine *m, const kh_ckpt_info *info, const kh_ck_splice *sp, unsigned nsp, uint8_t **out,
                      size_t *outlen, char *err, size_t errlen)
{
    *out = NULL;
    *outlen = 0;
    kh_ck *dw = kh_ck_writer(), *ck = kh_ck_writer();
    if (!dw || !ck) {
        kh_ck_free(dw);
        kh_ck_free(ck);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    desc_write(dw, m->nmeshes, m->interlink, m->map_text, kh_machine_params(m));
    size_t dn;
    const uint8_t *db = kh_ck_data(dw, &dn);
    uint64_t ph = params_hash(), mh = kh_fnv64(KH_FNV_INIT, db, dn);
    header(ck, &ph, &mh);
    kh_ck_section_begin(ck, "DESC", "machine");
    kh_ck_bytes(ck, (void *)(uintptr_t)db, dn);
    kh_ck_section_end(ck);
    kh_ckpt_info none;
    memset(&none, 0, sizeof none);
    kh_ck_section_begin(ck, "SESS", "session");
    sess_state(ck, info ? (kh_ckpt_info *)(uintptr_t)info : &none);
    kh_ck_section_end(ck);
    section(ck, "MACH", "machine", mach_state, m);
    if (sp) kh_sim_ckpt_replica(m->sim, ck, sp, nsp);
    else kh_sim_ckpt(m->sim, ck);
    section(ck, "CARD", "host card", card_state, m);
    if (m->check) section(ck, "CHCK", "flit checker", check_state, m);
    kh_ck_section_begin(ck, "END ", "end");
    kh_ck_section_end(ck);
    int rc = 0;
    if (kh_ck_failed(ck) || kh_ck_failed(dw)) {
        snprintf(err, errlen, "checkpoint refused: %s", kh_ck_failed(dw) ? kh_ck_error(dw) : kh_ck_error(ck));
        rc = -1;
    } else {
        size_t n;
        const uint8_t *b = kh_ck_data(ck, &n);
        *out = malloc(n ? n : 1);
        if (!*out) {
            snprintf(err, errlen, "out of memory (%zu bytes)", n);
            rc = -1;
        } else {
            memcpy(*out, b, n);
            *outlen = n;
        }
    }
    kh_ck_free(dw);
    kh_ck_free(ck);
    return rc;
}

int kh_machine_save_bytes(kh_machine *m, const kh_ckpt_info *info, uint8_t **out, size_t *outlen, char *err,
                          size_t errlen)
{
    return save_bytes(m, info, NULL, 0, out, outlen, err, errlen);
}

int kh_machine_save_spliced(kh_machine *m, const kh_ckpt_info *info, const kh_ck_splice *sp, unsigned nsp,
                            uint8_t **out, size_t *outlen, char *err, size_t errlen)
{
    return save_bytes(m, info, sp, nsp, out, outlen, err, errlen);
}

static int write_file(const char *path, uint8_t *b, size_t n, char *err, size_t errlen);

int kh_machine_save(kh_machine *m, const char *path, const kh_ckpt_info *info, char *err, size_t errlen)
{
    uint8_t *b = NULL;
    size_t n = 0;
    if (!kh_card_get_dist(m->card)) {
        if (kh_machine_save_bytes(m, info, &b, &n, err, errlen)) return -1;
        return write_file(path, b, n, err, errlen);
    }
    /* under MPI: every process takes part, the leader alone writes, and
     * every one returns the leader's outcome (machine_ckpt_part.c) */
    int rc = kh_machine_save_part(m, info, &b, &n, err, errlen);
    if (!rc && b) rc = write_file(path, b, n, err, errlen);
    else free(b);
    return kh_machine_save_outcome(m, rc, err, errlen);
}

/* b is freed */
static int write_file(const char *path, uint8_t *b, size_t n, char *err, size_t errlen)
{
    /* beside the target, then renamed: a failed write leaves no half file */
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.part", path) >= (int)sizeof tmp) {
        free(b);
        snprintf(err, errlen, "checkpoint %s: the path is too long", path);
        return -1;
    }
    FILE *f = fopen(tmp, "wb");
    int ok = f && fwrite(b, 1, n, f) == n;
    if (f && fclose(f)) ok = 0;
    free(b);
    if (!ok || rename(tmp, path)) {
        remove(tmp);
        snprintf(err, errlen, "checkpoint %s: cannot write it", path);
        return -1;
    }
    return 0;
}

/* ---- restore ---- */

kh_machine *kh_machine_restore_bytes(const uint8_t *bytes, size_t n, const kh_machine *like, kh_ckpt_info *info,
                                     char *err, size_t errlen)
{
    kh_ckpt_info got;
    memset(&got, 0, sizeof got);
    if (n < 8 || memcmp(bytes, KH_CK_MAGIC, 8)) {
        snprintf(err, errlen, "not a kohaku checkpoint (it does not start with \"%s\")", KH_CK_MAGIC);
        return NULL;
    }
    kh_ck *ck = kh_ck_reader(bytes, n);
    if (!ck) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    kh_machine *m = NULL;
    desc d;
    memset(&d, 0, sizeof d);
    uint64_t ph = 0, mh = 0;
    char magic[8];
    uint32_t version = 0, flags = 0;
    kh_ck_bytes(ck, magic, 8);
    KH_CK(ck, version);
    KH_CK(ck, flags);
    KH_CK(ck, ph);
    KH_CK(ck, mh);
    if (kh_ck_failed(ck)) goto bad;
    if (version != KH_CK_VERSION) {
        kh_ck_fail(ck, "checkpoint format version %u: this build reads version %u", version, KH_CK_VERSION);
        goto bad;
    }
    if (flags) {
        kh_ck_fail(ck, "checkpoint header flags 0x%x: this build knows none", flags);
        goto bad;
    }
    if (kh_ck_section_open(ck, "DESC", "machine", NULL, 0) || desc_read(ck, &d) || kh_ck_section_close(ck)) goto bad;
    if (ph != params_hash()) {
        char e2[512];
        params_differ(&d, e2, sizeof e2);
        kh_ck_fail(ck, "%s", e2);
        goto bad;
    }
    {
        kh_ck *dw = kh_ck_writer();
        if (!dw) {
            kh_ck_fail(ck, "out of memory");
            goto bad;
        }
        desc_write(dw, d.nmeshes, d.interlink, d.map, &d.p);
        size_t dn;
        const uint8_t *db = kh_ck_data(dw, &dn);
        uint64_t h = kh_fnv64(KH_FNV_INIT, db, dn);
        kh_ck_free(dw);
        if (h != mh) {
            kh_ck_fail(ck, "the header's machine hash does not match the description in the file: corrupted");
            goto bad;
        }
    }
    if (like) {
        char e2[512];
        if (machine_differs(&d, like, e2, sizeof e2)) {
            kh_ck_fail(ck, "%s", e2);
            goto bad;
        }
    }
    if (kh_ck_section_open(ck, "SESS", "session", NULL, 0)) goto bad;
    sess_state(ck, &got);
    if (kh_ck_section_close(ck)) goto bad;
    {
        char e2[1024];
        m = d.interlink ? kh_machine_new_meshes((const char *const *)d.map, d.nmeshes, &d.p, e2, sizeof e2)
                        : kh_machine_new(d.map[0], &d.p, e2, sizeof e2);
        if (!m) {
            kh_ck_fail(ck, "the machine the file describes cannot be built: %s", e2);
            goto bad;
        }
    }
    section(ck, "MACH", "machine", mach_state, m);
    kh_sim_ckpt(m->sim, ck);
    section(ck, "CARD", "host card", card_state, m);
    {
        char tag[5];
        kh_ck_section_peek(ck, tag);
        if (!strcmp(tag, "CHCK")) { /* saved with the checker on: it goes on where it was */
            char first[sizeof m->check_error];
            memcpy(first, m->check_error, sizeof first); /* restored in MACH; setting a checker clears it */
            if (!m->check && kh_machine_set_check(m, NULL, NULL)) {
                kh_ck_fail(ck, "out of memory for the flit checker");
                goto bad;
            }
            memcpy(m->check_error, first, sizeof first);
            section(ck, "CHCK", "flit checker", check_state, m);
            m->check_restored = 1;
        } else if (m->check) { /* KOHAKU_CHECK: a checker starting mid-stream would find what is not there */
            kh_ck_fail(ck, "restore refused: the live flit checker (KOHAKU_CHECK) is on, and the checkpoint was "
                           "saved without it (its stream state is not in the file)");
            goto bad;
        }
    }
    if (kh_ck_section_open(ck, "END ", "end", NULL, 0) || kh_ck_section_close(ck)) goto bad;
    if (kh_ck_left(ck)) {
        kh_ck_fail(ck, "%zu bytes after the END section", kh_ck_left(ck));
        goto bad;
    }
    desc_free(&d);
    kh_ck_free(ck);
    if (info) *info = got;
    return m;
bad:
    snprintf(err, errlen, "%s", kh_ck_error(ck));
    desc_free(&d);
    kh_ck_free(ck);
    kh_machine_free(m);
    return NULL;
}

kh_machine *kh_machine_restore(const char *path, const kh_machine *like, kh_ckpt_info *info, char *err,
                               size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "checkpoint %s: cannot open it", path);
        return NULL;
    }
    uint8_t *b = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (cap - n < 65536) {
            size_t nc = cap ? cap * 2 : 1 << 20;
            uint8_t *nb = realloc(b, nc);
            if (!nb) {
                free(b);
                fclose(f);
                snprintf(err, errlen, "checkpoint %s: out of memory reading it", path);
                return NULL;
            }
            b = nb;
            cap = nc;
        }
        size_t k = fread(b + n, 1, cap - n, f);
        n += k;
        if (k == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(b);
        snprintf(err, errlen, "checkpoint %s: read error", path);
        return NULL;
    }
    char e2[1200];
    kh_machine *m = kh_machine_restore_bytes(b, n, like, info, e2, sizeof e2);
    free(b);
    if (!m) snprintf(err, errlen, "checkpoint %s: %s", path, e2);
    return m;
}
