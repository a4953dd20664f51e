/* The flit: one 288-bit transfer unit (flits.md §1).
 *
 * Stored as five 64-bit words in the order of the host windows (flits.md §8):
 * w[0] = flit[63:0] ... w[3] = flit[255:192] (the payload), w[4] bits [31:0]
 * = the 32-bit header flit[287:256]; w[4] bits [63:32] are always zero.
 * Fields are read and written only through the accessors generated from
 * isa/flit.isa (<kohaku/gen/flit.h>), e.g. kh_hdr_dst_x(f.w). */
#ifndef KOHAKU_FLIT_H
#define KOHAKU_FLIT_H

#include <stdint.h>
#include <string.h>

#include "kohaku/bits.h"

#define KH_FLIT_BITS 288    /* FLIT_WIDTH of the reference build */
#define KH_PAYLOAD_BITS 256 /* payload = memory beat = 32 bytes */
#define KH_FLIT_WORDS 5     /* FLIT_WORDS of the host windows */
/* The payload is words 0..3 and the header lies in the last word (flits.md
 * §2): a sender that keeps a flit's header as one word puts it there. */
#define KH_FLIT_HDR_WORD (KH_FLIT_WORDS - 1)
_Static_assert(KH_PAYLOAD_BITS == KH_FLIT_HDR_WORD * 64, "payload in w[0..3], header in w[4]");

typedef struct kh_flit {
    uint64_t w[KH_FLIT_WORDS];
} kh_flit;

/* Message type codes (flits.md §3), shared by every layer. ORDER TYPE:
 * isa/flit.isa declares the same codes for the header's type field. */
enum kh_flit_type {
    KH_T_MEM_RD_REQ = 0x0,
    KH_T_MEM_WR_REQ = 0x1,
    KH_T_MEM_RD_RESP = 0x2,
    KH_T_MEM_WR_ACK = 0x3,
    KH_T_MEM_WR_DATA = 0x4,
    KH_T_CU_INST = 0x5,
    KH_T_CU_SIGNAL = 0x6,
    KH_T_CU_CTRL = 0x7,
    KH_T_CU_DATA = 0x8,
    KH_T_ERROR = 0xF,
};

/* CU_SIGNAL codes (flits.md §5). Codes below 0x40 belong to the framework;
 * a unit must never send 0x00, 0x01 or 0x04 itself. */
enum kh_signal_code {
    KH_SIG_INST_COMPLETE = 0x00,   /* retirement; arg = exec_result; refills a credit */
    KH_SIG_BATCH_COMPLETE = 0x01,  /* retirement of a last instruction; arg = {24'd0, txn} */
    KH_SIG_BARRIER_REACHED = 0x02, /* allocated, never emitted */
    KH_SIG_DATA_RECEIVED = 0x03,   /* a CU_DATA burst with flags[0] completed */
    KH_SIG_FAULT = 0x04,           /* exec_fault at exec_done; arg = exec_result */
};

static inline void kh_flit_clear(kh_flit *f) { memset(f, 0, sizeof *f); }
/* Keep the flit's 288 bits: a host window writes five words, of which word
 * 4 carries only bits [287:256] (flits.md §8); the rest is ignored. */
static inline void kh_flit_trim(kh_flit *f)
{
    kh_bits_set(f->w, KH_FLIT_BITS, KH_FLIT_WORDS * 64 - KH_FLIT_BITS, 0);
}

/* Every header field of flits.md §2, to build a header in one statement:
 * kh_flit_set_hdr(&f, &(kh_flit_hdr){.dst_x = 2, .dst_y = 1, ...}). */
typedef struct kh_flit_hdr {
    unsigned dst_x, dst_y; /* destination, the only routing input (§2.1) */
    unsigned src_x, src_y; /* the sender's own coordinate (§2.1) */
    unsigned type;         /* enum kh_flit_type (§3) */
    unsigned txn;          /* 8-bit tag (§2.2) */
    unsigned last;         /* §2.3 */
    unsigned rsvd;         /* §2.4; 0 unless remote or a streaming response */
} kh_flit_hdr;
/* Write every header field of h into f through the generated accessors
 * (each masked to its width); the payload is untouched. */
void kh_flit_set_hdr(kh_flit *f, const kh_flit_hdr *h);

/* Payload as 32 bytes in memory order: byte j = payload bits [8j+7:8j]. */
static inline void kh_flit_payload_to_bytes(const kh_flit *f, uint8_t out[32])
{
    kh_words_to_bytes(f->w, 4, out);
}
static inline void kh_flit_payload_from_bytes(kh_flit *f, const uint8_t in[32])
{
    kh_words_from_bytes(f->w, 4, in);
}

#endif
