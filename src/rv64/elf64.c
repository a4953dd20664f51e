/* ELF64 little-endian RISC-V executables for the RV64 core: the PT_LOAD
 * segments, the entry, and riscv-tests' tohost/fromhost symbols (the ELF
 * specification's header, program header and symbol layouts). */
#include <stdlib.h>
#include <string.h>

#include "kohaku/file.h"
#include "kohaku/rv64.h"

#define EM_RISCV 243
#define PT_LOAD 1
#define SHT_SYMTAB 2

static uint64_t le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = n; i-- > 0;) v = v << 8 | p[i];
    return v;
}

static int fail(kh_rv64_elf *elf, char *err, size_t errlen, const char *path, const char *what)
{
    snprintf(err, errlen, "%s: %s", path, what);
    kh_rv64_elf_free(elf);
    return -1;
}

/* the symbol table, for tohost and fromhost; a file without one is fine */
static void find_symbols(kh_rv64_elf *elf)
{
    const uint8_t *b = elf->buf;
    uint64_t shoff = le(b + 40, 8);
    unsigned shentsize = (unsigned)le(b + 58, 2), shnum = (unsigned)le(b + 60, 2);
    if (!shoff || shentsize < 64 || shoff > elf->len || (uint64_t)shnum * shentsize > elf->len - shoff) return;
    for (unsigned i = 0; i < shnum; i++) {
        const uint8_t *sh = b + shoff + (uint64_t)i * shentsize;
        if (le(sh + 4, 4) != SHT_SYMTAB) continue;
        uint64_t off = le(sh + 24, 8), size = le(sh + 32, 8), ent = le(sh + 56, 8);
        unsigned link = (unsigned)le(sh + 40, 4);
        if (ent < 24 || off > elf->len || size > elf->len - off || link >= shnum) continue;
        const uint8_t *strh = b + shoff + (uint64_t)link * shentsize;
        uint64_t soff = le(strh + 24, 8), ssize = le(strh + 32, 8);
        if (soff > elf->len || ssize > elf->len - soff) continue;
        for (uint64_t s = 0; s + ent <= size; s += ent) {
            const uint8_t *sym = b + off + s;
            uint64_t name = le(sym, 4);
            if (name >= ssize) continue;
            const char *nm = (const char *)b + soff + name;
            size_t maxn = (size_t)(ssize - name);
            if (strnlen(nm, maxn) == maxn) continue;
            if (!strcmp(nm, "tohost")) {
                elf->have_tohost = 1;
                elf->tohost = le(sym + 8, 8);
            } else if (!strcmp(nm, "fromhost")) {
                elf->have_fromhost = 1;
                elf->fromhost = le(sym + 8, 8);
            }
        }
    }
}

int kh_rv64_elf_read(const char *path, kh_rv64_elf *elf, char *err, size_t errlen)
{
    memset(elf, 0, sizeof *elf);
    elf->buf = (uint8_t *)kh_file_read(path, &elf->len, err, errlen);
    if (!elf->buf) return -1;
    const uint8_t *b = elf->buf;
    if (elf->len < 64 || memcmp(b, "\177ELF", 4)) return fail(elf, err, errlen, path, "not an ELF file");
    if (b[4] != 2) return fail(elf, err, errlen, path, "not a 64-bit ELF (EI_CLASS must be 2): an RV64 program is ELF64");
    if (b[5] != 1) return fail(elf, err, errlen, path, "not little-endian (EI_DATA must be 1)");
    if (le(b + 18, 2) != EM_RISCV) return fail(elf, err, errlen, path, "not a RISC-V executable (e_machine must be 243)");
    elf->entry = le(b + 24, 8);
    uint64_t phoff = le(b + 32, 8);
    unsigned phentsize = (unsigned)le(b + 54, 2), phnum = (unsigned)le(b + 56, 2);
    if (phentsize < 56 || phoff > elf->len || (uint64_t)phnum * phentsize > elf->len - phoff)
        return fail(elf, err, errlen, path, "program header table outside the file");
    elf->seg = calloc(phnum ? phnum : 1, sizeof *elf->seg);
    if (!elf->seg) return fail(elf, err, errlen, path, "out of memory");
    for (unsigned i = 0; i < phnum; i++) {
        const uint8_t *ph = b + phoff + (uint64_t)i * phentsize;
        if (le(ph, 4) != PT_LOAD) continue;
        uint64_t off = le(ph + 8, 8), vaddr = le(ph + 16, 8), filesz = le(ph + 32, 8), memsz = le(ph + 40, 8);
        if (filesz > memsz || off > elf->len || filesz > elf->len - off) {
            char what[160];
            snprintf(what, sizeof what, "PT_LOAD segment %u (vaddr 0x%llx) lies outside the file", i,
                     (unsigned long long)vaddr);
            return fail(elf, err, errlen, path, what);
        }
        elf->seg[elf->nseg++] = (kh_rv64_seg){.vaddr = vaddr, .filesz = filesz, .memsz = memsz, .bytes = b + off};
    }
    if (!elf->nseg) return fail(elf, err, errlen, path, "no PT_LOAD segment");
    find_symbols(elf);
    return 0;
}

void kh_rv64_elf_free(kh_rv64_elf *elf)
{
    free(elf->buf);
    free(elf->seg);
    memset(elf, 0, sizeof *elf);
}
