/* The memory mover (memory.md §11): register map and traps, every mode,
 * GO checks and fault codes, termination, status. */
#include "mover_rig.h"

static void word_at(rig *r, uint64_t a, uint64_t w[4]) { host_get_word(r, a, w); }

/* Reset values (§11.1): a GO with nothing programmed is a one-element COPY
 * of the word at 0 onto itself; it completes: done counter 1, fault 0. */
static void reset_values_make_a_one_word_copy(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint64_t w[4], g[4];
    pattern(0, w);
    host_put_word(&r, 0, w);
    CHECK_EQ(aux_busy(&r), 0);
    mv_go(&r, 0, 1, 0, 0);
    CHECK_EQ(aux_busy(&r), 1); /* busy from the GO write on */
    rig_run(&r);
    CHECK_EQ(aux_busy(&r), 0);
    CHECK_EQ(aux_fault(&r), 0);
    CHECK_EQ(aux_moves(&r), 1);
    word_at(&r, 0, g);
    CHECK(!memcmp(g, w, 32));
    CHECK_EQ(mover_stat(&r, "elements"), 1);
    rig_free(&r);
}

/* COPY: destination walk defines the iteration, source in lockstep. A 3x4
 * block of words with row pitch 0x400 gathered into a dense destination. */
static void copy_strided_block(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint64_t w[4], g[4];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            pattern(0x10000 + 0x400 * i + 32 * j, w);
            host_put_word(&r, 0x10000 + 0x400 * i + 32 * j, w);
        }
    mv_hdr(&r, 0, 0x10000, 2, 0, 0);
    mv_dim(&r, 0, 0, 3, 0x400, 0, 0);
    mv_dim(&r, 0, 1, 4, 32, 0, 0);
    mv_hdr(&r, 1, 0x50000, 1, 0, 0);
    mv_dim(&r, 1, 0, 12, 32, 0, 0);
    mv_go(&r, 0, 1, 1, 0);
    rig_run(&r);
    CHECK_EQ(aux_moves(&r), 1);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) {
            pattern(0x10000 + 0x400 * i + 32 * j, w);
            word_at(&r, 0x50000 + 32 * (4 * i + j), g);
            CHECK(!memcmp(g, w, 32));
        }
    rig_free(&r);
}

/* A transpose is COPY with permuted walkers (§11.3, seeds §4.4): a 4x3
 * word matrix written column-major. */
static void transpose_by_permuted_walkers(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint64_t w[4], g[4];
    for (int i = 0; i < 12; i++) {
        pattern(0x2000 + 32 * i, w);
        host_put_word(&r, 0x2000 + 32 * i, w);
    }
    /* destination dense [3][4]; source [4][3] read along columns */
    mv_hdr(&r, 1, 0x6000, 2, 0, 0);
    mv_dim(&r, 1, 0, 3, 4 * 32, 0, 0);
    mv_dim(&r, 1, 1, 4, 32, 0, 0);
    mv_hdr(&r, 0, 0x2000, 2, 0, 0);
    mv_dim(&r, 0, 0, 3, 32, 0, 0);
    mv_dim(&r, 0, 1, 4, 3 * 32, 0, 0);
    mv_go(&r, 0, 1, 0, 0);
    rig_run(&r);
    for (int c = 0; c < 3; c++)
        for (int rr = 0; rr < 4; rr++) {
            pattern(0x2000 + 32 * (3 * rr + c), w);
            word_at(&r, 0x6000 + 32 * (4 * c + rr), g);
            CHECK(!memcmp(g, w, 32));
        }
    rig_free(&r);
}

/* A source stride of 0 broadcasts (§11.3). */
static void zero_source_stride_broadcasts(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint64_t w[4], g[4];
    pattern(0x300, w);
    host_put_word(&r, 0x300, w);
    mv_hdr(&r, 0, 0x300, 1, 0, 0);
    mv_dim(&r, 0, 0, 5, 0, 0, 0);
    mv_hdr(&r, 1, 0x7000, 1, 0, 0);
    mv_dim(&r, 1, 0, 5, 32, 0, 0);
    mv_go(&r, 0, 1, 1, 0);
    rig_run(&r);
    for (int i = 0; i < 5; i++) {
        word_at(&r, 0x7000 + 32 * i, g);
        CHECK(!memcmp(g, w, 32));
    }
    rig_free(&r);
}

/* Source padding injects fill_word; a destination element outside its
 * bound axis is not written (§11.3 rules 1 and 7), for each ewidth. */
static void padding_and_write_suppression(void)
{
    static const uint64_t lane[3] = {0xEFEFEFEFEFEFEFEFull, 0xBEEFBEEFBEEFBEEFull, 0xDEADBEEFDEADBEEFull};
    for (unsigned ew = 0; ew < 3; ew++) {
        rig r;
        rig_init(&r, NULL, 1, 0, 0);
        uint64_t w[4], g[4], sentinel[4] = {1, 1, 1, 1};
        for (int i = 0; i < 6; i++) {
            pattern(0x1000 + 32 * i, w);
            host_put_word(&r, 0x1000 + 32 * i, w);
            host_put_word(&r, 0x9000 + 32 * i, sentinel);
        }
        mv_imm(&r, 0xDEADBEEF);
        /* source: 6 elements, axis 0 = index - 1, valid for 0..3: elements 1..4 */
        mv_hdr(&r, 0, 0x1000, 1, 0, 0);
        mv_dim(&r, 0, 0, 6, 32, 1, 1);
        mv_bound(&r, 0, 0, -1, 4);
        /* destination: axis 1 = index, valid below 5: element 5 suppressed */
        mv_hdr(&r, 1, 0x9000, 1, 0, 0);
        mv_dim(&r, 1, 0, 6, 32, 2, 1);
        mv_bound(&r, 1, 1, 0, 5);
        mv_go(&r, 0, ew, 1, 0);
        rig_run(&r);
        CHECK_EQ(aux_fault(&r), 0);
        for (int i = 0; i < 6; i++) {
            word_at(&r, 0x9000 + 32 * i, g);
            if (i == 5) {
                CHECK(!memcmp(g, sentinel, 32));
            } else if (i == 0) {
                for (int j = 0; j < 4; j++) CHECK_EQ(g[j], lane[ew]);
            } else {
                pattern(0x1000 + 32 * i, w);
                CHECK(!memcmp(g, w, 32));
            }
        }
        rig_free(&r);
    }
}

/* FILL writes fill_word at every valid destination element (§11.3). */
static void fill_mode(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint64_t g[4];
    mv_imm(&r, 0x12345678);
    mv_hdr(&r, 1, 0xA000, 1, 0, 0);
    mv_dim(&r, 1, 0, 64, 32, 0, 0);
    mv_go(&r, 4, 1, 1, 0);
    rig_run(&r);
    for (int i = 0; i < 64; i++) {
        word_at(&r, 0xA000 + 32 * i, g);
        for (int j = 0; j < 4; j++) CHECK_EQ(g[j], 0x5678567856785678ull);
    }
    CHECK_EQ(aux_moves(&r), 1);
    rig_free(&r);
}

/* GENERATE: the digest's words (§11.7) land at 0 (seed 0) and, tiled in two
 * moves, a region equals the one-move result. */
static void generate_mode_digest_words_and_tiling(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint64_t g[4];
    mv_hdr(&r, 1, 0x0, 1, 0, 0);
    mv_dim(&r, 1, 0, 1, 32, 0, 0);
    mv_go(&r, 3, 1, 0, 0);
    rig_run(&r);
    word_at(&r, 0, g);
    CHECK_EQ(g[3], 0x074944b373a459f5ull);
    CHECK_EQ(g[0], 0xe169c58d6627e8d5ull);
    mv_seed(&r, 0x0123456789abcdefull);
    mv_hdr(&r, 1, 0x20, 1, 0, 0);
    mv_go(&r, 3, 1, 0, 0);
    rig_run(&r);
    word_at(&r, 0x20, g);
    CHECK_EQ(g[3], 0x5cb4c92a304577bfull);
    CHECK_EQ(g[0], 0x523e0d85adca1466ull);
    /* one move over 8 words at 0x4000 vs two moves of 4 at 0x4000 and 0x4080
     * in another mesh-field alias: the value depends on the address only */
    mv_hdr(&r, 1, 0x4000, 1, 0, 0);
    mv_dim(&r, 1, 0, 8, 32, 0, 0);
    mv_go(&r, 3, 1, 1, 0);
    rig_run(&r);
    uint64_t one[8][4];
    for (int i = 0; i < 8; i++) word_at(&r, 0x4000 + 32 * i, one[i]);
    rig_free(&r);
    rig_init(&r, NULL, 1, 0, 0);
    mv_seed(&r, 0x0123456789abcdefull);
    mv_hdr(&r, 1, 0x4080, 1, 0, 0);
    mv_dim(&r, 1, 0, 4, 32, 0, 0);
    mv_go(&r, 3, 1, 0, 0);
    rig_run(&r);
    mv_hdr(&r, 1, 0x4000, 1, 0, 0);
    mv_go(&r, 3, 1, 0, 0);
    rig_run(&r);
    for (int i = 0; i < 8; i++) {
        word_at(&r, 0x4000 + 32 * i, g);
        CHECK(!memcmp(g, one[i], 32));
    }
    CHECK_EQ(aux_moves(&r), 2);
    rig_free(&r);
}

/* GATHER (§11.5): indices from memory, row r = e / G, word j = e % G,
 * source = src_base + index * pitch + 32 j; invalid destination elements
 * are skipped but consume (r, j). */
static void gather_rows_by_index(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint64_t w[4], g[4];
    static const uint32_t idx[10] = {7, 2, 9, 0, 5, 5, 1, 8, 3, 6};
    uint64_t iw[2][4] = {{0}};
    for (int i = 0; i < 10; i++) iw[i / 8][(i % 8) / 2] |= (uint64_t)idx[i] << (32 * (i & 1));
    host_put_word(&r, 0x100, iw[0]);
    host_put_word(&r, 0x120, iw[1]);
    for (int row = 0; row < 10; row++)
        for (int j = 0; j < 3; j++) {
            pattern(0x20000 + 0x200 * row + 32 * j, w);
            host_put_word(&r, 0x20000 + 0x200 * row + 32 * j, w);
        }
    mv_idx(&r, 0x100, 10);
    mv_gather(&r, 0x200, 3);
    mv_hdr(&r, 0, 0x20000, 0, 0, 0);
    /* destination 10 rows x 3 words dense; element 4 (row 1, word 1) suppressed */
    mv_hdr(&r, 1, 0x40000, 1, 0, 0);
    mv_dim(&r, 1, 0, 30, 32, 1, 1);
    mv_bound(&r, 1, 0, -4, 0xFFFF); /* axis value e - 4: valid from element 4 on ... */
    mv_bound(&r, 1, 0, 0, 0);       /* ... then disabled again: all valid */
    mv_go(&r, 2, 1, 1, 0);
    rig_run(&r);
    CHECK_EQ(aux_fault(&r), 0);
    for (int e = 0; e < 30; e++) {
        int row = e / 3, j = e % 3;
        pattern(0x20000 + 0x200 * idx[row] + 32 * j, w);
        word_at(&r, 0x40000 + 32 * e, g);
        CHECK(!memcmp(g, w, 32));
    }
    rig_free(&r);
}

/* GO checks in order (§11.4): ewidth 3 -> 5, TRANSPOSE -> 4, GATHER with
 * idx_count > 2048 -> 1; nothing moves, the done counter holds, and the
 * fault clears at the next accepted GO. */
static void go_checks_and_fault_codes(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    mv_go(&r, 1, 3, 0, 0);
    rig_run(&r);
    CHECK_EQ(aux_fault(&r), 5); /* ewidth first, even on TRANSPOSE */
    mv_go(&r, 1, 1, 0, 0);
    rig_run(&r);
    CHECK_EQ(aux_fault(&r), 4);
    mv_idx(&r, 0, 2049);
    mv_go(&r, 2, 1, 0, 0);
    rig_run(&r);
    CHECK_EQ(aux_fault(&r), 1);
    CHECK_EQ(aux_moves(&r), 0);
    CHECK_EQ(mover_stat(&r, "elements"), 0);
    mv_go(&r, 0, 1, 0, 0);
    CHECK_EQ(aux_fault(&r), 1); /* until the GO takes effect */
    rig_run(&r);
    CHECK_EQ(aux_fault(&r), 0);
    CHECK_EQ(aux_moves(&r), 1);
    rig_free(&r);
}

/* Fault 6 (§11.4): elements before the misaligned one are written, it and
 * later ones are not; busy falls; the done counter does not move. */
static void misaligned_destination_faults_6(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint64_t g[4];
    mv_imm(&r, 0x77);
    mv_hdr(&r, 1, 0x1000, 1, 0, 0);
    mv_dim(&r, 1, 0, 6, 0x30, 0, 0); /* 0x1000, 0x1030 (misaligned), ... */
    mv_go(&r, 4, 0, 0, 0);
    rig_run(&r);
    CHECK_EQ(aux_busy(&r), 0);
    CHECK_EQ(aux_fault(&r), 6);
    CHECK_EQ(aux_moves(&r), 0);
    word_at(&r, 0x1000, g);
    CHECK_EQ(g[0], 0x7777777777777777ull);
    word_at(&r, 0x1020, g);
    CHECK_EQ(g[0], 0);
    word_at(&r, 0x1060, g); /* element 2, after the fault: not written */
    CHECK_EQ(g[0], 0);
    rig_free(&r);
}

/* The trap of §11.1: 0x20 commits into the walker named by the most recent
 * 0x10, 0x18 or 0x28 write; a 0x28 between 0x18 and 0x20 redirects it. */
static void dim_commit_uses_latched_sel(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint64_t w[4], g[4];
    for (int i = 0; i < 4; i++) {
        pattern(0x3000 + 32 * i, w);
        host_put_word(&r, 0x3000 + 32 * i, w);
    }
    mv_hdr(&r, 0, 0x3000, 1, 0, 0);
    mv_hdr(&r, 1, 0x8000, 1, 0, 0);
    /* meant for the destination (sel 1) ... */
    uint64_t v = 0, a = 0;
    kh_mover_dim_set_sel(&v, 1);
    kh_mover_dim_set_dim(&v, 0);
    kh_mover_dim_set_count(&v, 4);
    kh_mover_dim_set_stride(&v, 32);
    mv_w(&r, 0x18, v);
    mv_bound(&r, 0, 1, 0, 0); /* ... but this 0x28 latches sel 0 */
    mv_w(&r, 0x20, a);
    mv_go(&r, 0, 1, 0, 0);
    rig_run(&r);
    /* the source got count 4; the destination still has one element */
    CHECK_EQ(mover_stat(&r, "elements"), 1);
    word_at(&r, 0x8000, g);
    pattern(0x3000, w);
    CHECK(!memcmp(g, w, 32));
    word_at(&r, 0x8020, g);
    CHECK_EQ(g[0], 0);
    rig_free(&r);
}

/* GO while busy is ignored (§11.1); a register write takes effect one
 * cycle after it arrives. */
static void go_while_busy_ignored(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    mv_hdr(&r, 1, 0x10000, 1, 0, 0);
    mv_dim(&r, 1, 0, 100, 32, 0, 0);
    mv_go(&r, 4, 2, 1, 0);
    kh_sim_run(r.sim, 5);
    CHECK_EQ(aux_busy(&r), 1);
    mv_go(&r, 4, 2, 1, 0);
    rig_run(&r);
    CHECK_EQ(aux_moves(&r), 1);
    CHECK_EQ(mover_stat(&r, "moves"), 1);
    rig_free(&r);
}

/* §11.8: without flags[3] every destination word is its own write; with it,
 * consecutive words merge up to the burst cap and never across 4 KB. */
static void write_coalescing_and_burst_cap(void)
{
    for (int mode = 0; mode < 3; mode++) {
        rig r;
        rig_init(&r, NULL, 1, 0, 0);
        mv_hdr(&r, 1, 0xF00, 1, 0, 0); /* 32 words from 0xF00: 8 below 4 KB, 24 above */
        mv_dim(&r, 1, 0, 32, 32, 0, 0);
        if (mode == 0) mv_go(&r, 4, 1, 0, 0);
        if (mode == 1) mv_go(&r, 4, 1, 1, 0);
        if (mode == 2) mv_go(&r, 4, 1, 1, 4); /* cap 2^(4-1) = 8 beats */
        rig_run(&r);
        unsigned long long b = mover_stat(&r, "write_bursts");
        if (mode == 0) CHECK_EQ(b, 32);
        if (mode == 1) CHECK_EQ(b, 2);
        if (mode == 2) CHECK_EQ(b, 4);
        rig_free(&r);
    }
}

/* §11.8: consecutive source words merge into read bursts up to the cap,
 * never across 4 KB. */
static void read_bursts_merge(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    mv_hdr(&r, 0, 0x1F80, 1, 0, 0); /* 4 words below 8 KB, 60 above */
    mv_dim(&r, 0, 0, 64, 32, 0, 0);
    mv_hdr(&r, 1, 0x40000, 1, 0, 0);
    mv_dim(&r, 1, 0, 64, 32, 0, 0);
    mv_go(&r, 0, 1, 1, 0);
    rig_run(&r);
    CHECK_EQ(mover_stat(&r, "read_bursts"), 2);
    rig_free(&r);
}

/* Modes 6 and 7 run as COPY with a warning (Open point 9). */
static void modes_6_7_run_as_copy(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint64_t w[4], g[4];
    pattern(0x40, w);
    host_put_word(&r, 0x40, w);
    mv_hdr(&r, 0, 0x40, 1, 0, 0);
    mv_hdr(&r, 1, 0x80, 1, 0, 0);
    mv_go(&r, 7, 1, 0, 0);
    rig_run(&r);
    word_at(&r, 0x80, g);
    CHECK(!memcmp(g, w, 32));
    CHECK(strstr(r.lastlog, "Open point 9") != NULL || r.logs > 0);
    rig_free(&r);
}

/* The mover reaches the staging store through the converged path (§8). */
static void mover_copies_into_staging(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint64_t w[4], g[4];
    for (int i = 0; i < 4; i++) {
        pattern(0x500 + 32 * i, w);
        host_put_word(&r, 0x500 + 32 * i, w);
    }
    mv_hdr(&r, 0, 0x500, 1, 0, 0);
    mv_dim(&r, 0, 0, 4, 32, 0, 0);
    mv_hdr(&r, 1, 0x8000000100ull, 1, 0, 0);
    mv_dim(&r, 1, 0, 4, 32, 0, 0);
    mv_go(&r, 0, 1, 1, 0);
    rig_run(&r);
    for (int i = 0; i < 4; i++) {
        pattern(0x500 + 32 * i, w);
        word_at(&r, 0x8000000100ull + 32 * i, g);
        CHECK(!memcmp(g, w, 32));
    }
    rig_free(&r);
}

/* A mover write to an unserved aperture reaches the DRAM master and is
 * never answered: the mover stays busy and the hang report says why. */
static void mover_write_to_aperture_hangs(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    mv_hdr(&r, 1, 0x9000000000ull, 1, 0, 0); /* mesh 1 staging */
    mv_go(&r, 4, 1, 0, 0);
    rig_run(&r);
    CHECK_EQ(aux_busy(&r), 1);
    char buf[4096];
    CHECK(rig_stuck(&r, buf, sizeof buf) >= 2);
    CHECK(strstr(buf, "mover(mesh 0) write of 0x9000000000") != NULL);
    CHECK(strstr(buf, "write responses outstanding") != NULL);
    rig_free(&r);
}

/* Overlapping regions follow sequential semantics (Open point 11): a copy
 * from dst - 32 replicates the first word forward. */
static void overlap_is_sequential(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint64_t w[4], g[4];
    pattern(0x600, w);
    host_put_word(&r, 0x600, w);
    mv_hdr(&r, 0, 0x600, 1, 0, 0);
    mv_dim(&r, 0, 0, 8, 32, 0, 0);
    mv_hdr(&r, 1, 0x620, 1, 0, 0);
    mv_dim(&r, 1, 0, 8, 32, 0, 0);
    mv_go(&r, 0, 1, 1, 0);
    rig_run(&r);
    for (int i = 0; i < 9; i++) {
        word_at(&r, 0x600 + 32 * i, g);
        CHECK(!memcmp(g, w, 32));
    }
    CHECK(strstr(r.lastlog, "Open point 11") != NULL);
    rig_free(&r);
}

/* Seeds instruction-encoding §4.4: a misaligned descriptor faults: a
 * misaligned source word is fault 6, elements before it complete. With
 * rtl_compat the RTL reads the aligned-down word (Open point 9). */
static void misaligned_source(void)
{
    for (int compat = 0; compat < 2; compat++) {
        kh_params p;
        kh_params_default(&p);
        p.rtl_compat = (uint64_t)compat;
        rig r;
        rig_init(&r, &p, 1, 0, 0);
        uint64_t w[4], g[4];
        for (int i = 0; i < 4; i++) {
            pattern(0x700 + 32 * i, w);
            host_put_word(&r, 0x700 + 32 * i, w);
        }
        mv_hdr(&r, 0, 0x700, 2, 0, 0);
        mv_dim(&r, 0, 0, 2, 0x28, 0, 0); /* 0x700, then 0x728 */
        mv_dim(&r, 0, 1, 2, 0, 0, 0);
        mv_hdr(&r, 1, 0x900, 1, 0, 0);
        mv_dim(&r, 1, 0, 4, 32, 0, 0);
        mv_go(&r, 0, 1, 1, 0);
        rig_run(&r);
        CHECK_EQ(aux_fault(&r), compat ? 0 : 6);
        pattern(0x700, w);
        word_at(&r, 0x920, g);
        CHECK(!memcmp(g, w, 32));
        word_at(&r, 0x940, g);
        if (compat) {
            pattern(0x720, w); /* aligned down */
            CHECK(!memcmp(g, w, 32));
        } else {
            CHECK_EQ(g[0], 0);
        }
        rig_free(&r);
    }
}

int main(void)
{
    KH_RUN(reset_values_make_a_one_word_copy);
    KH_RUN(copy_strided_block);
    KH_RUN(transpose_by_permuted_walkers);
    KH_RUN(zero_source_stride_broadcasts);
    KH_RUN(padding_and_write_suppression);
    KH_RUN(fill_mode);
    KH_RUN(generate_mode_digest_words_and_tiling);
    KH_RUN(gather_rows_by_index);
    KH_RUN(go_checks_and_fault_codes);
    KH_RUN(misaligned_destination_faults_6);
    KH_RUN(dim_commit_uses_latched_sel);
    KH_RUN(go_while_busy_ignored);
    KH_RUN(write_coalescing_and_burst_cap);
    KH_RUN(read_bursts_merge);
    KH_RUN(modes_6_7_run_as_copy);
    KH_RUN(mover_copies_into_staging);
    KH_RUN(mover_write_to_aperture_hangs);
    KH_RUN(overlap_is_sequential);
    KH_RUN(misaligned_source);
    return kh_test_end("t_node_mover");
}
