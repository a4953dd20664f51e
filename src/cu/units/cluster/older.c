/* mx_cluster_cu: the signature of the older form (cluster.md §11) on a
 * machine without the read-path quantiser. Upstream's published compiler
 * (7703ee8) fills L1 from FP16 tensors and expects the memory agent to
 * quantise them on the way (read_quant); the seeds' agent reads them
 * verbatim, the cluster multiplies FP16 bits as MXFP7 entries and drains
 * garbage, most of it saturated. Nothing here changes a result or a
 * cycle: entries are judged as FILL commits them, sub-tiles inherit the
 * judgement through the sweeps, and a drain of such sub-tiles raises the
 * diagnostic "older_read_path" (sim.h, docs/diagnostics.md). */
#include <stdio.h>

#include "cu/units/cluster/cluster_int.h"

#define OLDER_BAND 13      /* exponents within +-6 of each other: one tensor's range */
#define OLDER_MIN_VALUES 16 /* fewer nonzero halves than this: no judgement */

/* An entry's four words as FP16 words rather than an MXFP7 entry. An MXFP7
 * entry carries its four lane scales in bits [31:0] of every word
 * (numerics.md §2.2, memory.md §13: the quantiser writes them four times,
 * and so does every packer); FP16 words hold elements there, which differ
 * from word to word. And the 64 halves must read as one tensor's numbers:
 * all finite, at least 16 nonzero, nine in ten of them within 13 binades
 * (random bits spread over all 32 exponents, and often hit 31). */
int kh_cl_entry_fp16(const uint64_t w[16])
{
    uint32_t s0 = (uint32_t)w[0];
    if ((uint32_t)w[4] == s0 && (uint32_t)w[8] == s0 && (uint32_t)w[12] == s0) return 0;
    unsigned hist[32] = {0}, nonzero = 0;
    for (unsigned i = 0; i < 64; i++) {
        unsigned h = (unsigned)(w[i / 4] >> (16 * (i % 4))) & 0xFFFFu;
        unsigned e = (h >> 10) & 31u;
        if (e == 31) return 0; /* Inf or NaN: no tensor a compiler uploads */
        if (!(h & 0x7FFFu)) continue;
        hist[e]++;
        nonzero++;
    }
    if (nonzero < OLDER_MIN_VALUES) return 0;
    unsigned best = 0, run = 0;
    for (unsigned e = 0; e < 32; e++) {
        run += hist[e];
        if (e >= OLDER_BAND) run -= hist[e - OLDER_BAND];
        if (run > best) best = run;
    }
    return best * 10 >= nonzero * 9;
}

/* An entry committed into slot of side (0 A, 1 B) from the assembly
 * register; quantised: the read path made it (read_quant), so it is an
 * MXFP7 entry whatever its source was. */
void kh_cl_older_entry(kh_cluster *u, unsigned side, unsigned slot, int quantised)
{
    uint8_t *flags = side ? u->fp16_b : u->fp16_a;
    int fp16 = !quantised && kh_cl_entry_fp16(u->asm_w);
    flags[slot] = (uint8_t)fp16;
    u->n_fp16_entries += (uint64_t)fp16;
}

/* Does the sweep of in read an FP16 slot of side (the slots of mark_reads)? */
static int reads_fp16(const kh_cluster *u, const kh_cl_inst *in, unsigned side)
{
    const unsigned nk = kh_cl_or1(in->nk), groups = kh_cl_or1(side ? in->gn : in->gm);
    const uint8_t *flags = side ? u->fp16_b : u->fp16_a;
    for (unsigned x = 0; x < groups * nk && x < 256; x++)
        if (flags[kh_cl_l1ix(side ? in->bbank : in->abank, (side ? in->boff : in->aoff) + x, side ? u->gb : u->ga)])
            return 1;
    return 0;
}

/* The sweep of in has been computed: its sub-tiles carry FP16 products if
 * it read FP16 slots on both sides (the older compiler fills both operands
 * from FP16 tensors, never setting preq: one side alone is as likely a
 * test's hand-made entries), or (accumulating) if they did already.
 * Returns whether this sweep did. Free until the first FP16 entry. */
int kh_cl_older_sweep(kh_cluster *u, const kh_cl_inst *in)
{
    if (!u->n_fp16_entries) return 0;
    const unsigned gm = kh_cl_or1(in->gm), gn = kh_cl_or1(in->gn), tmask = u->tiles - 1;
    int dirty = reads_fp16(u, in, 0) && reads_fp16(u, in, 1);
    for (unsigned g = 0; g < gm; g++)
        for (unsigned h = 0; h < gn; h++) {
            uint8_t *t = &u->tile_fp16[(g * gn + h) & tmask];
            *t = (uint8_t)(dirty || (in->acc && *t));
        }
    return dirty;
}

/* A drain (explicit, or an emitting GEMM's batch) of granules FP16 words
 * in u->batch.val, tainted of them from FP16 sub-tiles: the diagnostic,
 * once per drain, with what the user needs to know and to do. */
void kh_cl_older_drain(kh_cluster *u, const kh_cl_inst *in, unsigned granules, unsigned tainted)
{
    if (!tainted || !u->cu) return;
    uint64_t sat = 0, nonfinite = 0;
    for (unsigned k = 0; k < granules; k++) kh_f16_word_extremes(u->batch.val[k], &sat, &nonfinite);
    char to[64];
    if (in->d.dnode)
        snprintf(to, sizeof to, "node (%u,%u) buffer %u", in->d.dst_x, in->d.dst_y, in->d.dbuf);
    else
        snprintf(to, sizeof to, "0x%010llx", (unsigned long long)in->d.base);
    u->n_older_drains++;
    kh_sim_diag(kh_cu_sim(u->cu), "older_read_path",
                "%s: %s of %u sub-tiles to %s: %u of them were computed from L1 entries that hold FP16 words, "
                "not MXFP7 entries (their four words disagree on the lane scales; %llu of %u values saturated "
                "or non-finite). That is the older form of cluster.md §11: upstream's published compiler "
                "(7703ee8) uploads FP16 operands and expects the memory agent to quantise them on the read "
                "path, which this machine's agent does not (read_quant = 0, the seeds' contract), so these "
                "results are wrong. Run with --param read_quant=1 or --profile upstream-7703ee8 "
                "(Python: kohaku.Machine(profile=\"upstream-7703ee8\"))",
                kh_cu_comp(u->cu)->name, in->emit ? "an emitting GEMM" : "a DRAIN", granules, to,
                tainted, (unsigned long long)(sat + nonfinite), 16 * granules);
}
