/* A save under MPI (docs/checkpoint.md "Under MPI"): every process holds
 * a replica of the whole machine and steps its meshes, so what a mesh
 * holds is read where it is stepped. Each mesh's owner writes its
 * components' sections, its part of the kernel (wakes, links), the
 * receiver's part of each lane into it from another process, and, once a
 * process, what it added to the counts; the card's distribution shares
 * those bytes from the owner. The leader then saves its replica with the
 * owners' sections spliced in, restores that into a scratch machine, loads
 * the owners' kernel and lane parts over it and saves the scratch machine
 * as the one process would: the same bytes as the one-process run's file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/ckpt.h"
#include "kohaku/ilink.h"
#include "machine/machine_int.h"

typedef struct mesh_part {
    uint8_t *comps, *rest; /* the COMP sections; the kernel, counts and lanes */
    uint64_t ncomps, nrest;
} mesh_part;

/* The owner's bytes of mesh i, shared with every process. 0, or -1 with
 * the owner's refusal in err (the same on every process). */
static int share_mesh(kh_machine *m, const kh_card_dist *dist, unsigned i, int *first_mine, mesh_part *p,
                      char *err, size_t errlen)
{
    kh_sim *sim = m->sim;
    unsigned mesh_end = m->mesh[m->nmeshes - 1].comp_hi;
    const mach_mesh *mm = &m->mesh[i];
    uint64_t hdr[3] = {0, 0, 0}; /* bytes of comps, of rest; the refusal's length + 1, 0 none */
    kh_ck *a = NULL, *b = NULL;
    char msg[1200] = "";
    int mine = dist->owns(dist->ctx, i);
    if (mine) {
        a = kh_ck_writer();
        b = kh_ck_writer();
        if (!a || !b) {
            snprintf(msg, sizeof msg, "out of memory");
        } else {
            kh_sim_comps_ckpt(sim, mm->comp_lo, mm->comp_hi, a);
            kh_sim_part_ckpt(sim, mm->comp_lo, mm->comp_hi, mesh_end, b);
            uint8_t counts = (uint8_t)*first_mine;
            *first_mine = 0;
            KH_CK(b, counts);
            if (counts) kh_sim_part_counts(sim, b);
            for (unsigned link = 0; link < 2; link++) {
                unsigned j = link ? i + 1 : i - 1; /* link 1 up the line, 0 down (mpi.c) */
                uint8_t cross = (link ? i + 1 < m->nmeshes : i > 0) && !dist->owns(dist->ctx, j);
                KH_CK(b, cross);
                if (cross) kh_node_ilink_rx_ckpt(mm->node, link, b);
            }
            if (kh_ck_failed(a) || kh_ck_failed(b))
                snprintf(msg, sizeof msg, "%s", kh_ck_failed(a) ? kh_ck_error(a) : kh_ck_error(b));
        }
        size_t n;
        if (msg[0]) {
            hdr[2] = strlen(msg) + 1;
        } else {
            p->comps = (uint8_t *)(uintptr_t)kh_ck_data(a, &n);
            hdr[0] = n;
            p->rest = (uint8_t *)(uintptr_t)kh_ck_data(b, &n);
            hdr[1] = n;
        }
    }
    dist->share(dist->ctx, i, hdr, sizeof hdr);
    int rc = 0;
    if (hdr[2]) {
        dist->share(dist->ctx, i, msg, (size_t)hdr[2] < sizeof msg ? (size_t)hdr[2] : sizeof msg);
        msg[sizeof msg - 1] = 0;
        snprintf(err, errlen, "checkpoint refused: %s", msg);
        p->comps = p->rest = NULL;
        rc = -1;
    } else {
        p->ncomps = hdr[0];
        p->nrest = hdr[1];
        /* the owner's bytes are its writers'; a copy on every process, the owner's too */
        uint8_t *c = malloc(hdr[0] ? hdr[0] : 1), *r = malloc(hdr[1] ? hdr[1] : 1);
        if (!c || !r) abort(); /* out of memory mid-collective: the processes cannot go on apart */
        if (mine) {
            memcpy(c, p->comps, hdr[0]);
            memcpy(r, p->rest, hdr[1]);
        }
        dist->share(dist->ctx, i, c, hdr[0]);
        dist->share(dist->ctx, i, r, hdr[1]);
        p->comps = c;
        p->rest = r;
    }
    kh_ck_free(a);
    kh_ck_free(b);
    return rc;
}

/* The leader: the one-process file from the replica and the parts. */
static int assemble(kh_machine *m, const kh_ckpt_info *info, mesh_part *parts, uint8_t **out, size_t *outlen,
                    char *err, size_t errlen)
{
    kh_ck_splice sp[KH_MACHINE_MAX_MESHES];
    for (unsigned i = 0; i < m->nmeshes; i++)
        sp[i] = (kh_ck_splice){m->mesh[i].comp_lo, m->mesh[i].comp_hi, parts[i].comps, parts[i].ncomps};
    uint8_t *raw;
    size_t n;
    if (kh_machine_save_spliced(m, info, sp, m->nmeshes, &raw, &n, err, errlen)) return -1;
    char e2[1200];
    kh_machine *s = kh_machine_restore_bytes(raw, n, m, NULL, e2, sizeof e2);
    free(raw);
    if (!s) {
        snprintf(err, errlen, "checkpoint refused: the processes' parts do not restore: %s", e2);
        return -1;
    }
    unsigned mesh_end = s->mesh[s->nmeshes - 1].comp_hi;
    kh_sim_part_begin(s->sim);
    int rc = 0;
    for (unsigned i = 0; i < s->nmeshes && !rc; i++) {
        kh_ck *r = kh_ck_reader(parts[i].rest, parts[i].nrest);
        if (!r) {
            rc = -1;
            snprintf(err, errlen, "out of memory");
            break;
        }
        kh_sim_part_ckpt(s->sim, s->mesh[i].comp_lo, s->mesh[i].comp_hi, mesh_end, r);
        uint8_t counts = 0;
        KH_CK(r, counts);
        if (counts) kh_sim_part_counts(s->sim, r);
        for (unsigned link = 0; link < 2 && !kh_ck_failed(r); link++) {
            uint8_t cross = 0;
            KH_CK(r, cross);
            if (cross) kh_node_ilink_rx_ckpt(s->mesh[i].node, link, r);
        }
        if (!kh_ck_failed(r) && kh_ck_left(r)) kh_ck_fail(r, "%zu bytes left in mesh %u's part", kh_ck_left(r), i);
        if (kh_ck_failed(r)) {
            snprintf(err, errlen, "checkpoint refused: mesh %u's part: %s", i, kh_ck_error(r));
            rc = -1;
        }
        kh_ck_free(r);
    }
    if (!rc) {
        kh_sim_part_finish(s->sim);
        rc = kh_machine_save_bytes(s, info, out, outlen, err, errlen);
    }
    kh_machine_free(s);
    return rc;
}

int kh_machine_save_part(kh_machine *m, const kh_ckpt_info *info, uint8_t **out, size_t *outlen, char *err,
                         size_t errlen)
{
    const kh_card_dist *dist = kh_card_get_dist(m->card);
    const kh_sync_ops *sync = kh_sim_sync(m->sim);
    *out = NULL;
    *outlen = 0;
    if (m->check) { /* every process has it or none: refused everywhere, before any collective */
        snprintf(err, errlen, "checkpoint refused: a save under mpirun with the live flit checker on is not built "
                 "(each process checks the flits of its meshes; docs/checkpoint.md)");
        return -1;
    }
    kh_sim_settle(m->sim);
    mesh_part parts[KH_MACHINE_MAX_MESHES];
    memset(parts, 0, sizeof parts);
    int first_mine = 1, rc = 0;
    for (unsigned i = 0; i < m->nmeshes && !rc; i++) rc = share_mesh(m, dist, i, &first_mine, &parts[i], err, errlen);
    if (!rc && sync && sync->leader) rc = assemble(m, info, parts, out, outlen, err, errlen);
    for (unsigned i = 0; i < m->nmeshes; i++) {
        free(parts[i].comps);
        free(parts[i].rest);
    }
    return rc;
}

int kh_machine_save_outcome(kh_machine *m, int rc, char *err, size_t errlen)
{
    const kh_card_dist *dist = kh_card_get_dist(m->card);
    const kh_sync_ops *sync = kh_sim_sync(m->sim);
    struct {
        int32_t said, rc;
        char msg[1024];
    } w;
    int said = 0, out = 0;
    char msg[sizeof w.msg] = "";
    /* the leader's word rides on the meshes it steps; every mesh's owner shares */
    for (unsigned i = 0; i < m->nmeshes; i++) {
        memset(&w, 0, sizeof w);
        if (dist->owns(dist->ctx, i) && sync && sync->leader) {
            w.said = 1;
            w.rc = rc;
            if (rc) snprintf(w.msg, sizeof w.msg, "%s", err);
        }
        dist->share(dist->ctx, i, &w, sizeof w);
        if (w.said && !said) {
            said = 1;
            out = w.rc;
            memcpy(msg, w.msg, sizeof msg);
            msg[sizeof msg - 1] = 0;
        }
    }
    if (out && errlen) snprintf(err, errlen, "%s", msg);
    return out ? -1 : 0;
}
