/* Programs for the node's control processor: an ELF32 or flat image read
 * into instruction-memory and scratchpad pieces, and loaded the way a host
 * does (cpu.md §12): CU_DATA bursts to (0,0) and the kick, staged and
 * dispatched by the orchestrator in chunks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/file.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/regs.h"
#include "kohaku/gen/rv32.h"
#include "kohaku/rv32.h"

static uint32_t le32(const uint8_t *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24; }
static unsigned le16(const uint8_t *b) { return (unsigned)b[0] | (unsigned)b[1] << 8; }

static void put_bytes(uint32_t *mem, uint32_t off, const uint8_t *src, uint32_t n, uint32_t zeros)
{
    for (uint32_t i = 0; i < n + zeros; i++) {
        uint32_t a = off + i;
        uint32_t byte = i < n ? src[i] : 0;
        mem[a / 4] = (mem[a / 4] & ~(0xFFu << (8 * (a % 4)))) | byte << (8 * (a % 4));
    }
}

static void mark(kh_rv32_image *img, int spad, uint32_t off, uint32_t len)
{
    if (!len) return;
    unsigned lo = off / 32, hi = (off + len + 31) / 32;
    if (spad) {
        if (img->spad_hi == 0 || lo < img->spad_lo) img->spad_lo = lo;
        if (hi > img->spad_hi) img->spad_hi = hi;
    } else if (hi > img->imem_granules) {
        img->imem_granules = hi;
    }
}

static int read_elf(const uint8_t *b, size_t n, kh_rv32_image *img, char *err, size_t errlen)
{
    if (n < 52 || b[4] != 1 || b[5] != 1) {
        snprintf(err, errlen, "ELF: class %u data %u: an ELF32 little-endian file is needed (-march=rv32i -mabi=ilp32)",
                 n > 5 ? b[4] : 0, n > 5 ? b[5] : 0);
        return -1;
    }
    if (le16(b + 18) != 243) {
        snprintf(err, errlen, "ELF: e_machine %u is not RISC-V (243)", le16(b + 18));
        return -1;
    }
    img->entry = le32(b + 24);
    uint32_t phoff = le32(b + 28);
    unsigned phentsize = le16(b + 42), phnum = le16(b + 44);
    if (phentsize < 32 || (uint64_t)phoff + (uint64_t)phnum * phentsize > n) {
        snprintf(err, errlen, "ELF: program headers (offset %u, %u of %u bytes) lie outside the file", phoff, phnum,
                 phentsize);
        return -1;
    }
    for (unsigned i = 0; i < phnum; i++) {
        const uint8_t *ph = b + phoff + (size_t)i * phentsize;
        if (le32(ph) != 1) continue; /* PT_LOAD only */
        uint32_t off = le32(ph + 4), pa = le32(ph + 12), filesz = le32(ph + 16), memsz = le32(ph + 20);
        if (!memsz) continue;
        if (filesz > memsz || (uint64_t)off + filesz > n) {
            snprintf(err, errlen, "ELF: segment %u (offset %u, %u bytes in the file) lies outside the file", i, off,
                     filesz);
            return -1;
        }
        int spad = pa >= KH_RV32_SPAD_BASE;
        uint32_t base = spad ? KH_RV32_SPAD_BASE : 0, size = spad ? KH_RV32_SPAD_BYTES : KH_RV32_IMEM_BYTES;
        if (pa < base || (uint64_t)pa - base + memsz > size) {
            snprintf(err, errlen,
                     "ELF: segment %u at 0x%08x, %u bytes: a segment must lie in the instruction memory "
                     "(0x0-0x1fff) or the scratchpad (0x10000000-0x10001fff) (cpu.md §4)", i, pa, memsz);
            return -1;
        }
        put_bytes(spad ? img->spad : img->imem, pa - base, b + off, filesz, memsz - filesz);
        mark(img, spad, pa - base, memsz);
    }
    return 0;
}

int kh_rv32_image_read(const uint8_t *bytes, size_t n, kh_rv32_image *img, char *err, size_t errlen)
{
    memset(img, 0, sizeof *img);
    if (n >= 4 && bytes[0] == 0x7F && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F')
        return read_elf(bytes, n, img, err, errlen);
    if (n == 0 || n > KH_RV32_IMEM_BYTES) {
        snprintf(err, errlen, "flat image of %zu bytes: code for the instruction memory is 1 to 8192 bytes (cpu.md §4.1)",
                 n);
        return -1;
    }
    put_bytes(img->imem, 0, bytes, (uint32_t)n, 0);
    mark(img, 0, 0, (uint32_t)n);
    return 0;
}

int kh_rv32_image_load(const char *path, kh_rv32_image *img, char *err, size_t errlen)
{
    size_t n;
    char e2[400];
    uint8_t *b = (uint8_t *)kh_file_read(path, &n, e2, sizeof e2);
    if (!b) {
        snprintf(err, errlen, "%s", e2);
        return -1;
    }
    char e3[400];
    int rc = kh_rv32_image_read(b, n, img, e3, sizeof e3);
    if (rc) snprintf(err, errlen, "%s: %s", path, e3);
    free(b);
    return rc;
}

/* ---- loading through the orchestrator ---- */

#define CHUNK 32 /* flits staged per dispatch: within every stage_flits a machine may set */

typedef struct loader {
    kh_card *card;
    unsigned mesh;
    kh_flit f[CHUNK];
    unsigned n;
    char *err;
    size_t errlen;
} loader;

static int wr(loader *l, uint32_t off, uint64_t v)
{
    return kh_card_write64(l->card, kh_host_ctrl(l->mesh, off), v, l->err, l->errlen);
}

/* Stage the chunk, dispatch it to (0,0) with one credit per flit, wait
 * until the dispatcher has sent it all. */
static int flush(loader *l)
{
    if (!l->n) return 0;
    for (unsigned s = 0; s < l->n; s++)
        for (unsigned k = 0; k < KH_FLIT_WORDS; k++)
            if (wr(l, KH_ORCH_STAGE + 40 * s + 8 * k, l->f[s].w[k])) return -1;
    if (wr(l, KH_ORCH_PROG_DST, 0x00) || wr(l, KH_ORCH_PROG_BASE, 0) || wr(l, KH_ORCH_PROG_LEN, l->n) ||
        wr(l, KH_ORCH_PROG_CRED, l->n) || wr(l, KH_ORCH_PROG_KICK, 1))
        return -1;
    for (unsigned tries = 0;; tries++) {
        uint64_t st;
        if (kh_card_read64(l->card, kh_host_ctrl(l->mesh, KH_ORCH_PROG_STAT), &st, l->err, l->errlen)) return -1;
        if (!kh_orch_prog_stat_run(&st)) break;
        if (tries > 1000000) {
            snprintf(l->err, l->errlen, "loading the control processor: the dispatch of %u flits to (0,0) never "
                     "finished (PROG_STAT 0x%016llx)", l->n, (unsigned long long)st);
            return -1;
        }
    }
    l->n = 0;
    return 0;
}

static int add(loader *l, const kh_flit *f)
{
    if (l->n == CHUNK && flush(l)) return -1;
    l->f[l->n++] = *f;
    return 0;
}

/* One burst: buf_id buf, granules [g, g + count) of mem. */
static int burst(loader *l, unsigned buf, const uint32_t *mem, unsigned g, unsigned count)
{
    while (count) {
        if (l->n > CHUNK - 2 && flush(l)) return -1;
        unsigned k = CHUNK - 1 - l->n;
        if (k > count) k = count;
        kh_flit d;
        kh_flit_clear(&d);
        kh_hdr_set_type(d.w, KH_T_CU_DATA);
        kh_cu_data_set_buf_id(d.w, buf);
        kh_cu_data_set_offset(d.w, g);
        kh_cu_data_set_len(d.w, k - 1);
        if (add(l, &d)) return -1;
        for (unsigned j = 0; j < k; j++) {
            kh_flit x;
            kh_flit_clear(&x);
            kh_hdr_set_type(x.w, KH_T_CU_DATA);
            kh_hdr_set_last(x.w, j + 1 == k);
            uint64_t data[4] = {0};
            for (unsigned i = 0; i < 8; i++) data[i / 2] |= (uint64_t)mem[8 * (g + j) + i] << (32 * (i % 2));
            kh_cu_data_data_set_data(x.w, data);
            if (add(l, &x)) return -1;
        }
        g += k;
        count -= k;
    }
    return 0;
}

int kh_rv32_host_load(kh_card *card, unsigned mesh, const kh_rv32_image *img, uint32_t arg, unsigned txn,
                      unsigned last, char *err, size_t errlen)
{
    loader l = {.card = card, .mesh = mesh, .err = err, .errlen = errlen};
    if (burst(&l, 1, img->imem, 0, img->imem_granules)) return -1;
    if (img->spad_hi > img->spad_lo && burst(&l, 0, img->spad, img->spad_lo, img->spad_hi - img->spad_lo))
        return -1;
    kh_flit k;
    kh_flit_clear(&k);
    kh_hdr_set_type(k.w, KH_T_CU_INST);
    kh_hdr_set_txn(k.w, txn & 0xFF);
    kh_hdr_set_last(k.w, last & 1);
    kh_rv32_kick_set_op(k.w, 1);
    kh_rv32_kick_set_pc(k.w, img->entry);
    kh_rv32_kick_set_arg(k.w, arg);
    if (add(&l, &k)) return -1;
    return flush(&l);
}
