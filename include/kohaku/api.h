/* The stable C API of libkohaku for a host program (docs/python.md): open a
 * simulated machine, drive it through the host window as a driver drives
 * the card, run it, read its cycle count, trace and statistics, close.
 * Everything else under include/kohaku/ is the simulator's own interface
 * and may change between versions; this header does not, within a major
 * version. Every call returns a kh_status; kh_dev_message() says why the
 * last call failed. One kh_dev is one simulation: several may be open at
 * once, each used by one thread at a time. A NULL handle, or a NULL buffer
 * for n > 0 bytes, is KH_E_ARG (the counters read 0); a closed handle is
 * freed memory and must not be used again.
 */
#ifndef KOHAKU_API_H
#define KOHAKU_API_H

#include <stddef.h>
#include <stdint.h>

#define KH_API_MAJOR 1
#define KH_API_MINOR 3 /* 1: kh_dev_diag_count, kh_dev_diag, kh_dev_param, the parameter host_map; 2: kh_dev_set_engine;
                         * 3: kh_dev_save, kh_dev_restore */
/* The library's API version: major << 16 | minor. A program built against
 * KH_API_MAJOR runs with any library of the same major version. */
unsigned kh_api_version(void);

typedef enum kh_status {
    KH_OK = 0,
    KH_E_ARG = 1,      /* a bad argument (NULL, a bad option) */
    KH_E_MACHINE = 2,  /* the machine could not be built: map, machine file, profile or parameter */
    KH_E_ALIGN = 3,    /* an address not 8-byte aligned */
    KH_E_PARTIAL = 4,  /* a block that is not whole 64-bit words */
    KH_E_UNMAPPED = 5, /* an address no host window decodes */
    KH_E_REFUSED = 6,  /* the machine refused an operation (a kick past the staging RAM, ...) */
    KH_E_STUCK = 7,    /* a read repeated with nothing pending: the value can never change */
    KH_E_BUSY = 8,     /* idle: the machine was still busy at the limit */
    KH_E_IO = 9,       /* a trace or statistics file could not be written */
    KH_E_NOMEM = 10,
} kh_status;
/* "KH_E_ALIGN", ...; "unknown" for another value. */
const char *kh_status_name(int status);

typedef struct kh_dev kh_dev;

/* Open a machine. machine: a map picture file, a machine file, or
 * "default". profile: NULL or a profile name (kohaku params --profile),
 * applied after a machine file's own param lines; params: nparams
 * "name=value" strings applied last (none of them NULL). On failure *out
 * is NULL and err holds the reason. */
int kh_dev_open(kh_dev **out, const char *machine, const char *profile, const char *const *params,
                size_t nparams, char *err, size_t errlen);
void kh_dev_close(kh_dev *d); /* NULL: nothing; d is invalid afterwards */
/* Why the last failing call on d failed ("" after a success). */
const char *kh_dev_message(const kh_dev *d);

/* The host window (control.md §9): word and block accesses; a block is the
 * same run of word accesses, little-endian. Each access costs the host
 * link's time (docs/host-link.md). A refused access changes nothing. The
 * addresses are those of the machine's host_map parameter: 0 kohaku's map
 * (control.md §9.2), 1 "noboard", what upstream's Card() assumes without a
 * board file (docs/python.md). */
int kh_dev_write64(kh_dev *d, uint64_t addr, uint64_t value);
int kh_dev_read64(kh_dev *d, uint64_t addr, uint64_t *value);
int kh_dev_write_block(kh_dev *d, uint64_t addr, const void *bytes, size_t n);
int kh_dev_read_block(kh_dev *d, uint64_t addr, void *bytes, size_t n);

/* Polls that cannot succeed: when the same address (or block) is read n
 * times in a row with nothing else in between, each time with nothing
 * pending in the machine and the same value, the n-th read fails with
 * KH_E_STUCK, naming the address and the machine's diagnosis. Default 8;
 * 0 never fails. (Reading an idle register twice is fine.) */
int kh_dev_set_stuck_reads(kh_dev *d, unsigned n);

/* The engine the machine runs on from here: "fast" (the default, the event
 * engine) or "cycle" (the per-cycle reference); every result is the same
 * (docs/design.md §2). KH_E_ARG for another name. */
int kh_dev_set_engine(kh_dev *d, const char *engine);

/* Checkpoints (docs/checkpoint.md): the whole machine to a file, between
 * calls; a machine with a part a checkpoint does not cover yet (named in
 * the message), or the live checker on, is KH_E_REFUSED and nothing is
 * written; a file that cannot be written KH_E_IO. The dev's own counters
 * (kh_dev_accesses, the stuck-read run) are not in it. */
int kh_dev_save(kh_dev *d, const char *path);
/* Open the machine a checkpoint holds, at the cycle it was saved. A file
 * that cannot be read is KH_E_IO; one refused (another format version or
 * parameter set, truncated, corrupted: err names what differs or where)
 * KH_E_MACHINE; *out is NULL then. */
int kh_dev_restore(kh_dev **out, const char *path, char *err, size_t errlen);

/* Advance n cycles with no host traffic. KH_E_ARG, and no cycle run, if
 * the clock would pass its end, cycle 2^62. */
int kh_dev_run(kh_dev *d, uint64_t cycles);
/* Run until nothing is pending (KH_E_BUSY after limit cycles, with the
 * diagnosis in the message; a limit past the clock's end stops there). */
int kh_dev_idle(kh_dev *d, uint64_t limit);
/* The next cycle to execute (cycles elapsed since the machine was built). */
uint64_t kh_dev_cycles(const kh_dev *d);
/* Host accesses so far (words, and one per block). */
uint64_t kh_dev_accesses(const kh_dev *d);

/* Start a Perfetto / Chrome trace-event file (path NULL: finish the trace
 * being written). */
int kh_dev_trace(kh_dev *d, const char *path);
/* The statistics as one JSON object (the --stats format) into buf, at most
 * len bytes with the terminating 0; *need (if not NULL) is the length
 * without it, so a first call with len 0 sizes the buffer. */
int kh_dev_stats(kh_dev *d, char *buf, size_t len, size_t *need);
/* Why the machine is not progressing (kohaku's hang report) into buf;
 * "" when nothing is pending. */
int kh_dev_diagnose(kh_dev *d, char *buf, size_t len);

/* Mesh mesh's DRAM at local byte offset, with no host time and no host
 * window (a backdoor, as upstream's simulated card's BR/BW). */
int kh_dev_dram_read(kh_dev *d, unsigned mesh, uint64_t offset, void *bytes, size_t n);
int kh_dev_dram_write(kh_dev *d, unsigned mesh, uint64_t offset, const void *bytes, size_t n);
/* Meshes of the machine (1..4). */
unsigned kh_dev_meshes(const kh_dev *d);
/* The machine parameter name (kohaku params) as the machine was built,
 * profile and parameters applied. KH_E_ARG for a name no row has. */
int kh_dev_param(const kh_dev *d, const char *name, uint64_t *value);

/* Diagnostics (docs/diagnostics.md): the machine's results so far carry
 * the signature of a known mistake, such as upstream's published compiler
 * (FP16 operands) on a machine without its read-path quantiser
 * ("older_read_path"). Nothing fails: the caller shows them. Distinct
 * diagnostics so far (cheap: compare after each call to see a new one). */
unsigned kh_dev_diag_count(const kh_dev *d);
/* Diagnostic i (0 .. kh_dev_diag_count - 1): its name, how often it was
 * seen and its first occurrence's message, each pointer (if not NULL) set;
 * the strings live until kh_dev_close. KH_E_ARG past the end. */
int kh_dev_diag(kh_dev *d, unsigned i, const char **name, uint64_t *count, const char **message);

#endif
