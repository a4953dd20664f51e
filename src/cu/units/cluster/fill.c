/* mx_cluster_cu FILL: one streaming read request per instruction and the
 * placement of its responses by tag (cluster.md §4). */
#include <string.h>

#include "cu/units/cluster/cluster_int.h"

#include <kohaku/gen/flit.h>

/* §4.2 leader rule: me = CU_Y·16 + CU_X must be below every present peer
 * byte; each member derives its role from its own coordinate. */
static int kh_cl_fill_is_leader(const kh_cluster *u, unsigned peers, unsigned npeer)
{
    uint64_t pv = peers;
    unsigned me = u->at.y * 16u + u->at.x;
    for (unsigned j = 0; j < npeer && j < 3; j++)
        if (!(me < (unsigned)kh_bits_get(&pv, 8 * j, 8))) return 0;
    return 1;
}

/* The MEM_RD_REQ of §4.2, built from the FILL in flight. */
static void build_request(const kh_cluster *u, kh_flit *f)
{
    const kh_cl_inst *in = &u->in;
    kh_flit_clear(f);
    kh_flit_set_hdr(f, &(kh_flit_hdr){.dst_x = u->at.mem_x, .dst_y = u->at.mem_y, .src_x = u->at.x,
                                      .src_y = u->at.y, .type = KH_T_MEM_RD_REQ, .txn = in->eoff, .last = 1});
    kh_mem_rd_req_set_addr(f->w, in->d.base);
    kh_mem_rd_req_set_len(f->w, 3);                     /* four words per entry */
    /* The older agent (read_quant, cluster.md §11): preq = 0 asks for FP16
     * entries, quantised on the read path with the packing of the side. */
    unsigned flags = KH_CL_RD_FLAGS_STREAM;
    if (u->read_quant && !in->preq) flags |= KH_CL_RD_FLAGS_QUANT | (in->sel ? KH_CL_RD_FLAGS_BLAYOUT : 0);
    kh_mem_rd_req_set_flags(f->w, flags);
    kh_mem_rd_req_set_count(f->w, in->n);               /* n[7:0] (the setter masks) */
    kh_mem_rd_req_set_peer(f->w, in->peers);            /* verbatim */
    kh_mem_rd_req_set_n_peer(f->w, in->npeer);
    kh_mem_rd_req_set_entry_words(f->w, 0);             /* 0 means 4 */
}

/* First FILL cycle: the leader queues its request; everyone starts counting
 * committed entries. */
void kh_cl_fill_start(kh_cluster *u, kh_cycle now)
{
    const kh_cl_inst *in = &u->in;
    u->fill_need = kh_cl_or1(in->n);
    u->fill_got = 0;
    u->fill_leader = kh_cl_fill_is_leader(u, in->peers, in->npeer);
    if (in->npeer)
        kh_cl_warn(u, "FILL with npeer=%u: shared fetch is decoded but upstream documents it as "
                      "unreliable (a follower cannot tell which FILL an entry belongs to; cluster.md §4.3)",
                   in->npeer);
    if (u->fill_need > KH_CL_FILL_MAX)
        kh_cl_warn(u, "FILL n=%u: the request asks for n[7:0]=%u entries but the unit waits for %u: "
                      "this FILL never retires (cluster.md §4.1)",
                   u->fill_need, u->fill_need & 255u, u->fill_need);
    kh_cl_fill_hazard(u, in, now);
    if (u->fill_leader) {
        kh_flit f;
        build_request(u, &f);
        kh_cl_queue_flit(u, &f, now);
    }
}

/* One 256-bit word of an entry into the assembly register (§4.3); word 3
 * commits the record (scales from word 0 only). Shared by FILL responses and
 * CU_DATA bursts into buffers 0 and 1 (§7). */
void kh_cl_place_word(kh_cluster *u, unsigned word, const uint64_t data[4], int b_packing,
                      kh_mx_entry *commit_to)
{
    memcpy(&u->asm_w[4 * word], data, 4 * sizeof data[0]);
    if (word == 3) kh_mx_unpack(u->asm_w, b_packing, commit_to);
}

/* A MEM_RD_RESP while a FILL executes: placed by the tag, not by arrival
 * order, into l1ix(fbank, txn) of side sel, both from this cluster's own
 * FILL. Returns 1 when the FILL has all its entries. */
int kh_cl_fill_resp(kh_cluster *u, const kh_flit *f, kh_cycle now)
{
    (void)now;
    const kh_cl_inst *in = &u->in;
    unsigned word = (unsigned)kh_hdr_rsvd_word(f->w); /* rsvd[1:0] = word index */
    unsigned txn = (unsigned)kh_hdr_txn(f->w);
    kh_mx_entry *side = in->sel ? u->l1b : u->l1a;
    unsigned size = in->sel ? u->gb : u->ga;
    uint64_t data[4];
    kh_mem_rd_resp_data_get(f->w, data);
    unsigned slot = kh_cl_l1ix(in->fbank, txn, size);
    kh_cl_place_word(u, word, data, (int)in->sel, &side[slot]);
    if (word == 3) {
        /* the request's QUANT flag: the read path quantised this entry (§11) */
        kh_cl_older_entry(u, in->sel, slot, u->read_quant && !in->preq);
        u->fill_got++;
    }
    return u->fill_got >= u->fill_need;
}
